import SegueCore
import SegueProtocol
import SegueStore
import SegueWire
import Testing

@testable import SegueDaemon

/// What the engine core decides from the log: the fold and recovery at start, checkpoints, reads of
/// the past (`state --at`, `history`), all over a log in memory.
@Suite struct EngineCoreLogTests {
    static let create = EngineCoreRequestTests.create

    /// At a restart, animated transitions complete at their frame, interactive ones are cancelled
    /// with reason `recovery`, also when their interaction timeout (10 s) fell due while the daemon
    /// was down; the events are published once durable, and `since` is the log's end before them.
    @Test(
        arguments: [
            (#"{"cmd":"push","navigator":"r","screen":"A","animated":true}"#, 5, ["transition.completed"], nil),
            (
                #"{"cmd":"begin","navigator":"r","operation":"push","screen":"A"}"#, 5,
                ["transition.cancelled"], "recovery"
            ),
            (
                #"{"cmd":"begin","navigator":"r","operation":"push","screen":"A"}"#, 15,
                ["transition.cancelled"], "recovery"
            ),
        ] as [(String, Int64, [String], String?)])
    func recoveryResolvesTransitionsInFlight(request: String, downtime: Int64, types: [String], reason: String?)
        throws
    {
        let before = try EngineHarness()
        _ = before.call(Self.create)
        #expect(before.call(request).reply["ok"] == true)
        let seq = before.log.lastSeq
        let after = try EngineHarness(log: before.log, now: before.now + downtime * 1_000_000_000)
        #expect(after.core.fold == EngineCore.Fold(checkpoint: 0, events: Int(seq)))
        let events = after.core.recover(now: after.now)
        #expect(events.map(\.type) == types)
        if let reason { #expect(events.last?.data["reason"] == .string(reason)) }
        #expect(after.core.openedAt == seq)
        after.core.recovered(events, waited: 0)
        let out = after.core.takeActions()
        #expect(out.topics == Array(repeating: "event/r/", count: types.count))
        #expect(out.logLines.last?.hasPrefix("Recovered \(types.count.counted("event"))") == true)
        #expect(after.call(#"{"cmd":"ping"}"#).reply["since"] == .int(seq))
    }

    /// systemd's STATUS= counts transitions running: navigators whose transitions ended before a
    /// restart are not in flight, whatever final ticks the active list still waits to prune.
    @Test func theStatusLineCountsOnlyTransitionsRunning() throws {
        let before = try EngineHarness()
        _ = before.call(Self.create)
        _ = before.call(#"{"cmd":"push","navigator":"r","screen":"A","animated":false}"#)
        let after = try EngineHarness(log: before.log, now: before.now + 1_000_000_000)
        after.core.recovered(after.core.recover(now: after.now), waited: 0)
        #expect(after.core.statusLine.hasPrefix("1 navigators, 0 in flight,"), "\(after.core.statusLine)")
        _ = after.call(#"{"cmd":"push","navigator":"r","screen":"B","animator":{"duration":5}}"#)
        #expect(after.core.statusLine.hasPrefix("1 navigators, 1 in flight,"), "\(after.core.statusLine)")
    }

    /// On a shared log another daemon may checkpoint between a starting daemon's read of the
    /// marker and its read of the newest snapshots: a navigator's newest row is then past the marker,
    /// and its row at the marker is an older one. Skipped, the navigator started from nothing and
    /// the tail did not fold ("expected revision 1").
    @Test func aSnapshotNewerThanTheMarkerIsReadAtTheMarker() throws {
        let log = FakeLog()
        let live = try EngineHarness(log: log)
        _ = live.call(#"{"cmd":"create","navigator":"n","root":"Home"}"#)
        func checkpoint(marker: Bool) {
            let fleet = live.core.fleet
            let state = fleet.navigators["n"]!
            log.snapshots.append(
                Snapshot(navigator: "n", seq: fleet.lastSeq, revision: state.revision, state: state.json))
            guard marker else { return }
            log.snapshots.append(
                Snapshot(
                    navigator: EngineCore.checkpointMarker, seq: fleet.lastSeq, revision: 0,
                    state: ["frame": .int(fleet.lastFrame), "time": .int(fleet.lastTime)]))
        }
        checkpoint(marker: true)
        _ = live.call(#"{"cmd":"push","navigator":"n","screen":"A","animated":false}"#)
        // The later checkpoint's own marker is what the starting daemon read too early to see.
        checkpoint(marker: false)
        let restarted = try EngineHarness(log: log)
        #expect(restarted.core.fleet.navigators["n"] == live.core.fleet.navigators["n"])
    }

    /// A stop asked for while a long log folds at start ends the fold within `foldCheckEvery` events,
    /// saying where it stopped; a fold that is not told to stop reads to the end.
    @Test func aStopEndsTheFoldAtStart() throws {
        let live = try EngineHarness()
        let count = EngineCore.foldCheckEvery + 10
        for index in 0..<count { _ = live.call(#"{"cmd":"create","navigator":"n\#(index)","root":"Home"}"#) }
        #expect(live.log.lastSeq == Int64(count))
        var asked = 0
        do {
            _ = try EngineCore(
                options: live.core.options, store: live.log, timer: TestClock(),
                keepFolding: {
                    asked += 1
                    return false
                })
            Issue.record("the fold did not stop")
        } catch let stopped as EngineCore.FoldStopped {
            #expect(stopped.seq == Int64(EngineCore.foldCheckEvery) && stopped.lastSeq == Int64(count))
        }
        #expect(asked == 1)
        let folded = try EngineCore(
            options: live.core.options, store: live.log, timer: TestClock(), keepFolding: { true })
        #expect(folded.fleet.navigators.count == count && folded.fold.events == count)
    }

    @Test func nothingToRecoverAppendsNothing() throws {
        let before = try EngineHarness()
        _ = before.call(Self.create)
        let after = try EngineHarness(log: before.log, now: before.now + 5_000_000_000)
        #expect(after.core.recover(now: after.now).isEmpty)
    }

    /// Every `checkpointEvery` events a checkpoint snapshots the navigators changed since the last,
    /// saved only once the log is durable up to it; the next start folds from it.
    @Test func checkpointsWaitForDurabilityAndShortenTheFold() throws {
        let h = try EngineHarness { $0.checkpointEvery = 4 }
        _ = h.call(Self.create)
        _ = h.call(EngineCoreRequestTests.push("A"))
        #expect(h.core.step(.turnEnded).isEmpty, "3 events")
        _ = h.send(EngineCoreRequestTests.push("B"))
        #expect(h.core.step(.turnEnded).isEmpty, "seq 5 is not durable yet")
        _ = h.commit()
        let saved = h.core.step(.turnEnded)
        guard case .saveSnapshots(let seq, let snapshots) = saved.first else {
            Issue.record("\(saved)")
            return
        }
        #expect(seq == 5 && Set(snapshots.map(\.navigator)) == ["r", EngineCore.checkpointMarker])
        #expect(h.core.step(.turnEnded).isEmpty)
        h.log.snapshots = snapshots
        _ = h.call(EngineCoreRequestTests.push("C"))
        let next = try EngineHarness(log: h.log)
        #expect(next.core.fold == EngineCore.Fold(checkpoint: 5, events: 2))
        #expect(next.core.fleet.state(of: "r").stack.map(\.name) == ["Home", "A", "B", "C"])
    }

    /// `state --at` folds the past from the log; past its end it says so.
    @Test(arguments: [(1, 1, nil), (2, 1, nil), (3, 2, nil), (4, nil, "invalid_argument")] as [(Int64, Int?, String?)])
    func stateAtASeq(at: Int64, depth: Int?, code: String?) throws {
        let h = try EngineHarness()
        _ = h.call(Self.create)
        _ = h.call(EngineCoreRequestTests.push("A"))
        let reply = h.call(#"{"cmd":"state","navigator":"r","at":\#(at)}"#).reply
        #expect(reply["stack"]?.arrayValue?.count == depth, "\(reply.serialized())")
        #expect(reply["error"]?["code"] == code.map(JSON.string))
    }

    @Test func historyPagesThroughDurableEvents() throws {
        let h = try EngineHarness()
        _ = h.call(Self.create)
        _ = h.call(EngineCoreRequestTests.push("A"))
        _ = h.call(EngineCoreRequestTests.push("B"))
        let page = h.call(#"{"cmd":"history","after":0,"limit":2}"#).reply
        #expect(page["events"]?.arrayValue?.count == 2 && page["next"] == 2 && page["more"] == true)
        h.log.failure = StoreError(kind: .io, message: "gone")
        #expect(h.call(#"{"cmd":"history","after":0}"#).reply["ok"] == false)
    }

    /// A `history` page waits behind the client's earlier replies, as every reply does: released with
    /// them, it is read then, and holds what they acknowledged.
    @Test func historyWaitsBehindTheClientsEarlierReplies() throws {
        let h = try EngineHarness()
        _ = h.call(Self.create)
        let sent = h.send(EngineCoreRequestTests.push("A", id: "p")) + h.send(#"{"cmd":"history","id":"h"}"#)
        #expect(sent.replies.isEmpty, "the push is not durable yet")
        let replies = (sent + h.commit()).replies
        #expect(replies.map { $0["id"] } == ["p", "h"])
        #expect(replies.last?["events"]?.arrayValue?.count == 3)
    }

    /// `history` gives each event the digest it was published with, from any page start: the log
    /// stores none, so a navigator met mid-page is folded from its snapshot and the tail after it.
    @Test func historyEventsCarryTheirPublishedDigests() throws {
        let h = try EngineHarness { $0.checkpointEvery = 4 }
        var published: [Int64: JSON] = [:]
        func run(_ request: String) {
            for event in h.call(request).events { published[event["seq"]!.int64Value!] = event["digest"] }
            for case .saveSnapshots(_, let snapshots) in h.core.step(.turnEnded) { h.log.snapshots += snapshots }
        }
        run(Self.create)
        run(#"{"cmd":"create","navigator":"q","root":"Start"}"#)
        for screen in ["A", "B", "C", "D"] {
            run(EngineCoreRequestTests.push(screen))
            run(#"{"cmd":"present","navigator":"q","screen":"M\#(screen)","animated":false}"#)
        }
        run(#"{"cmd":"pop","navigator":"r","animated":false}"#)
        #expect(!h.log.snapshots.isEmpty, "the pages below start after a checkpoint too")
        let last = h.log.lastSeq
        for navigator in [nil, "r", "q"] as [String?] {
            let filter = navigator.map { #","navigator":"\#($0)""# } ?? ""
            for after in 0..<last {
                let page = h.call(#"{"cmd":"history","after":\#(after),"limit":3\#(filter)}"#).reply
                for event in page["events"]?.arrayValue ?? [] {
                    let seq = event["seq"]!.int64Value!
                    #expect(event["digest"] != nil && event["digest"] == published[seq], "after \(after), seq \(seq)")
                }
            }
        }
    }
}
