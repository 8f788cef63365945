import SegueCore
import SegueProtocol
import SegueStore
import SegueWire
import Testing

@testable import SegueDaemon

/// The engine's rules for commands, driven without a socket, a file or a thread: a request in,
/// actions out, the commit's result fed back by hand.
@Suite struct EngineCoreRequestTests {
    static let create = #"{"cmd":"create","navigator":"r","root":"Home"}"#
    static func push(_ screen: String, id: String? = nil, animated: Bool = false) -> String {
        let id = id.map { #","id":"\#($0)""# } ?? ""
        return #"{"cmd":"push","navigator":"r","screen":"\#(screen)","animated":\#(animated)\#(id)}"#
    }

    /// `ok: true` means durable: the reply and the event wait for the commit's result.
    @Test func repliesAndEventsWaitForTheCommit() throws {
        let h = try EngineHarness()
        let decided = h.send(Self.create)
        #expect(decided.replies.isEmpty && decided.events.isEmpty, "\(decided)")
        let commit = h.core.step(.commit)
        #expect(commit.appended.count == 1 && commit.replies.isEmpty)
        guard case .append(let units, let epoch) = commit.first else { return }
        let durable = h.core.step(
            .committed([EngineCompletion(epoch: epoch, for: units[0], result: .success(()))]))
        #expect(durable.reply["ok"] == true && durable.reply["seq"] == 1)
        #expect(durable.events.map { $0["type"] } == ["navigator.created"])
        // Replies first, then publications.
        #expect(durable.messages.firstIndex { if case .reply = $0 { true } else { false } } == 0)
    }

    /// A failed commit voids what waited on it: each request still gets an answer, `unavailable`,
    /// nothing it showed is published, and the fleet is rolled back (a retry applies it anew).
    @Test func aFailedCommitVoidsTheRepliesAndTheEvents() throws {
        let h = try EngineHarness()
        _ = h.call(Self.create)
        h.commitFailure = StoreError(kind: .io, message: "disk full")
        let failed = h.call(Self.push("A"))
        #expect(failed.reply["ok"] == false && failed.reply["error"]?["code"] == "unavailable", "\(failed)")
        #expect(failed.events.isEmpty)
        #expect(failed.logLines.contains { $0.contains("Commit failed after seq 1") })
        // `stats.events` counts stored events: the create's, not the failed push's two.
        #expect(h.core.stats.events == 1)
        h.commitFailure = nil
        let retried = h.call(Self.push("A"))
        // Started and completed at once (not animated): seq 2 and 3 again, not 4 and 5.
        #expect(retried.reply["ok"] == true && retried.reply["seq"] == 3, "rolled back to seq 1")
        // A generation later: the store refuses units decided before the failure was known, and
        // takes these (`AppendUnit.generation`).
        #expect(failed.appended.map(\.generation) == [0] && retried.appended.map(\.generation) == [1])
        #expect(retried.logLines.isEmpty, "a recovery is said once it has lasted: \(retried.logLines)")
        #expect(h.core.stats.events == 3)
        // A second on, with no commit in between: housekeeping says it.
        h.move(frames: 61)
        #expect(h.core.step(.housekeeping(now: h.now)).logLines == ["Commits succeed again, after 1 failed commit(s)."])
    }

    /// A commit refused because the log's other daemons use another shard count stops the loop, once,
    /// with the reason on a critical line; a lease write refused so does too.
    @Test func aCountTheOtherDaemonsDoNotShareStopsTheLoop() throws {
        let h = try EngineHarness()
        _ = h.call(Self.create)
        h.commitFailure = StoreError(kind: .misconfigured, message: "The log at x is shared in 8 shards")
        let failed = h.call(Self.push("A"))
        #expect(failed.reply["error"]?["code"] == "unavailable")
        #expect(
            failed.contains(.stop) && failed.contains(.log(.critical, "Stopping: The log at x is shared in 8 shards")))
        #expect(!h.call(Self.push("A")).contains(.stop), "asked once")
    }

    /// `list` is not sorted and encoded on the loop: the core hands the navigators as they are to be
    /// answered beside it, behind the commit of what they show; a failed commit voids it as a reply.
    @Test func listIsAnsweredBesideTheLoopBehindTheCommit() throws {
        let h = try EngineHarness()
        _ = h.call(Self.create)
        let request = [[1], Array(#"{"cmd":"list","id":"l1"}"#.utf8)]
        let queued = h.core.step(.request(frames: request, userID: nil, now: h.now)) + h.core.step(.commit)
        let beside = queued.flatMap { action -> [ListQuery] in
            guard case .send(let messages) = action else { return [] }
            return messages.compactMap { if case .list(_, let query) = $0 { query } else { nil } }
        }
        #expect(beside.map { $0.navigators.keys.sorted() } == [["r"]] && beside.first?.seq == 1, "\(queued)")
        #expect(queued.map(h.answered).reply["navigators"]?.arrayValue?.first?["navigator"] == "r")
        // Behind a push whose commit fails: it showed the push, so it is `unavailable` too.
        _ = h.send(Self.push("A"))
        let list = h.send(#"{"cmd":"list","id":"l2"}"#)
        #expect(list.replies.isEmpty, "waits for the push's commit: \(list)")
        h.commitFailure = StoreError(kind: .io, message: "disk full")
        let failed = h.commit()
        #expect(failed.replies.map { $0["error"]?["code"] } == ["unavailable", "unavailable"], "\(failed)")
        #expect(failed.replies.last?["id"] == "l2")
    }

    /// A completion that a failed commit voided is decided again, never before the log's last frame:
    /// at its scheduled frame it would go in behind the command that came meanwhile (at the current
    /// frame), the log's frames out of order, which `segue verify` reports as damage.
    @Test func aCompletionAFailedCommitVoidedKeepsTheLogsFramesInOrder() throws {
        let h = try EngineHarness()
        _ = h.call(Self.create)
        _ = h.call(#"{"cmd":"create","navigator":"b","root":"Home"}"#)
        _ = h.call(#"{"cmd":"push","navigator":"r","screen":"A","animator":{"duration":0.1}}"#)
        h.commitFailure = StoreError(kind: .io, message: "disk full")
        // The push completes (frame 7 of its 0.1 s) while commits fail: its completion is voided.
        _ = h.advance(frames: 20)
        h.commitFailure = nil
        let first = h.call(#"{"cmd":"push","navigator":"b","screen":"B","animated":false}"#)
        #expect(first.reply["ok"] == true, "\(first)")
        _ = h.advance(frames: 1)
        let frames = h.log.events.map(\.frame)
        #expect(frames == frames.sorted(), "frames in seq order: \(h.log.events.map { ($0.seq, $0.type, $0.frame) })")
        #expect(h.log.events.contains { $0.navigator == "r" && $0.type == "transition.completed" })
    }

    /// What the voided reply tells the client to do: retry once storage recovers, or, for a damaged
    /// file, that only the operator's restore helps.
    @Test(arguments: [
        (StoreError(kind: .io, message: "disk full"), "retry when storage recovers."),
        (
            // 11: SQLITE_CORRUPT
            StoreError(kind: .sqlite, extendedCode: 11, message: "database disk image is malformed"),
            "the log's file is damaged: the operator must stop segued and restore a backup."
        ),
    ])
    func aFailedCommitSaysWhatTheClientCanDo(failure: StoreError, ending: String) throws {
        let h = try EngineHarness()
        _ = h.call(Self.create)
        h.commitFailure = failure
        let failed = h.call(Self.push("A"))
        #expect(
            failed.reply["error"]?["message"]?.stringValue
                == "The log could not be written, so push on r was not applied; \(ending)", "\(failed)")
    }

    @Test(arguments: [
        (#"{"cmd":"ping"}"#, "ok", JSON.bool(true)),
        (#"{"cmd":"nope"}"#, "ok", JSON.bool(false)),
        (#"{"cmd":"state","navigator":"missing"}"#, "error", ["code": "unknown_navigator"] as JSON),
    ])
    func readsAreAnsweredInTheSameTurn(request: String, key: String, value: JSON) throws {
        let h = try EngineHarness()
        let out = h.call(request)
        if key == "error" {
            #expect(out.reply["error"]?["code"] == value["code"], "\(out.reply.serialized())")
        } else {
            #expect(out.reply[key] == value, "\(out.reply.serialized())")
        }
        #expect(out.appended.isEmpty)
    }

    @Test func pingSaysWhichRunAnswers() throws {
        let h = try EngineHarness { $0.heartbeatInterval = .milliseconds(1500) }
        let ping = h.call(#"{"cmd":"ping"}"#).reply
        #expect(ping["instance"] == "test" && ping["since"] == 0 && ping["heartbeatSeconds"] == 1.5)
        #expect(ping["frameRate"] == 60 && ping["version"] == .string(SegueVersion.current))
        // The daemon's clock, for a client's offset estimate: the instant the request was handled.
        #expect(ping["clock"] == .int(h.now))
    }

    /// A DEALER's body is one frame; a REQ's comes after an empty delimiter, which the reply keeps.
    @Test(
        arguments: [
            ([[7], Array(#"{"cmd":"ping"}"#.utf8)], [[7]] as [[UInt8]], true),
            ([[7], [], Array(#"{"cmd":"ping"}"#.utf8)], [[7], []] as [[UInt8]], true),
            ([[7], [1], [2]], [[7]] as [[UInt8]], false),
        ] as [([[UInt8]], [[UInt8]], Bool)])
    func envelopes(frames: [[UInt8]], envelope: [[UInt8]], ok: Bool) throws {
        let h = try EngineHarness()
        let out = h.core.step(.request(frames: frames, userID: nil, now: h.now)) + h.commit()
        guard case .reply(let got, let body, _) = out.messages.first else {
            Issue.record("no reply: \(out)")
            return
        }
        #expect(got == envelope)
        #expect(try JSON.parse(body)["ok"] == .bool(ok))
        #expect(h.core.stats.malformed == (ok ? 0 : 1))
    }

    /// With CURVE on, only a controller key may change a navigator; observers may read.
    @Test(arguments: [("controller", true), ("observer", false)])
    func onlyControllersChangeNavigators(role: String, allowed: Bool) throws {
        let h = try EngineHarness {
            $0.security = SecurityOptions(serverSecretKey: "", clients: [:])
        }
        let out = h.call(Self.create, userID: role)
        #expect(out.reply["ok"] == .bool(allowed))
        if !allowed { #expect(out.reply["error"]?["code"] == "forbidden") }
        #expect(h.call(#"{"cmd":"list"}"#, userID: "observer").reply["ok"] == true)
    }

    @Test func theNavigatorLimitHolds() throws {
        let h = try EngineHarness { $0.maxNavigators = 1 }
        #expect(h.call(Self.create).reply["ok"] == true)
        let second = h.call(#"{"cmd":"create","navigator":"s","root":"Home"}"#).reply
        #expect(second["error"]?["code"] == "too_large")
        #expect(h.core.stats.rejected == 1)
    }

    @Test(
        arguments: [
            (#"{"cmd":"create","navigator":"r","root":"Home","queueLimit":65}"#, "too_large"),
            (#"{"cmd":"create","navigator":"r","root":"Home"}"#, nil),
        ] as [(String, String?)])
    func daemonCapsApplyAtCreate(request: String, code: String?) throws {
        let h = try EngineHarness { $0.maxQueue = 64 }
        let reply = h.call(request).reply
        #expect(reply["error"]?["code"] == code.map(JSON.string), "\(reply.serialized())")
    }

    /// The daemon's defaults fill only what a `create` leaves out (absent or null): a member given is
    /// kept even at its built-in value, and checked against the daemon's caps.
    @Test(
        arguments: [
            ("", 8, 30.0, nil),
            (#","interactionTimeout":10"#, 8, 10.0, nil),
            (#","interactionTimeout":null,"queueLimit":null"#, 8, 30.0, nil),
            (#","queueLimit":4"#, 4, 30.0, nil),
            (#","queueLimit":16"#, 0, 0, "too_large"),
        ] as [(String, Int, Double, String?)])
    func theDaemonsDefaultsFillOnlyWhatACreateLeavesOut(
        members: String, queueLimit: Int, timeout: Double, code: String?
    ) throws {
        let h = try EngineHarness {
            $0.maxQueue = 8
            $0.defaultInteractionTimeout = 30
        }
        let actions = h.call(#"{"cmd":"create","navigator":"r","root":"Home"\#(members)}"#)
        #expect(actions.reply["error"]?["code"] == code.map(JSON.string), "\(actions.reply.serialized())")
        guard code == nil else { return }
        let config = actions.events.first { $0["type"] == "navigator.created" }?["data"]?["config"]
        #expect(config?["queueLimit"] == .int(Int64(queueLimit)), "\(config?.serialized() ?? "no event")")
        #expect(config?["interactionTimeout"]?.doubleValue == timeout, "\(config?.serialized() ?? "no event")")
    }

    // MARK: Busy and queue

    /// While a transition is in flight another command gets `busy`, or with `busy: queue` waits its
    /// turn and starts when the first completes.
    @Test(arguments: [("reject", false), ("queue", true)])
    func busyRejectsOrQueues(policy: String, queues: Bool) throws {
        let h = try EngineHarness()
        _ = h.call(#"{"cmd":"create","navigator":"r","root":"Home","busy":"\#(policy)"}"#)
        #expect(h.call(Self.push("A", animated: true)).reply["transition"] == 1)
        let second = h.call(Self.push("B", animated: true)).reply
        if queues {
            #expect(second["ok"] == true && second["queued"] == 1, "\(second.serialized())")
        } else {
            #expect(second["error"]?["code"] == "busy", "\(second.serialized())")
        }
        let later = h.advance(frames: 30)
        let types = later.events.compactMap { $0["type"]?.stringValue }
        #expect(types.contains("transition.completed"))
        #expect(types.contains("transition.started") == queues, "\(types)")
        let state = h.call(#"{"cmd":"state","navigator":"r"}"#).reply
        #expect(state["stack"]?.arrayValue?.count == 2)
        #expect((state["transition"]?["to"]?["name"] == "B") == queues)
    }

    // MARK: Idempotency

    /// A retried id gets the first reply, byte for byte, and appends nothing.
    @Test func aRetriedIDGetsTheFirstReply() throws {
        let h = try EngineHarness()
        _ = h.call(Self.create)
        let first = h.call(Self.push("A", id: "p-1"))
        let retry = h.call(Self.push("A", id: "p-1"))
        #expect(retry.appended.isEmpty)
        #expect(retry.replies == first.replies)
        #expect(h.core.stats.idempotentReplays == 1)
    }

    /// The same id with a different request is refused, in order behind the first one's reply.
    @Test func anIDReusedForAnotherRequestIsRefused() throws {
        let h = try EngineHarness()
        _ = h.call(Self.create)
        _ = h.call(Self.push("A", id: "p-1"))
        let reused = h.call(Self.push("B", id: "p-1")).reply
        #expect(reused["error"]?["code"] == "invalid_argument" && reused["id"] == "p-1")
        #expect(h.log.lastSeq == 3, "only the first push")
    }

    /// Past the memory of recent replies, an id is looked up in the store; while the filter of stored
    /// ids is loading every id is looked up, once it is ready a new id skips the lookup. After a
    /// restart the first reply still comes from the store.
    @Test func olderIDsAreLookedUpInTheStore() throws {
        let h = try EngineHarness()
        h.core.recentCommands = RecentCommands(capacity: 2)
        _ = h.call(Self.create)
        var originals: [[JSON]] = []
        for index in 0..<5 { originals.append(h.call(Self.push("S\(index)", id: "w-\(index)")).replies) }
        #expect(h.log.commandLookups == 5, "loading: every new id is looked up")
        let retry = h.call(Self.push("S0", id: "w-0"))
        #expect(retry.appended.isEmpty && retry.replies == originals[0])
        #expect(h.log.commandLookups == 6)

        h.core.knownCommandIDs.finishLoading(with: CommandIDFilter(expected: 0, maxIDs: 100))
        _ = h.call(Self.push("S5", id: "w-5"))
        #expect(h.log.commandLookups == 6, "ready: a new id skips the store")
        #expect(h.call(Self.push("S1", id: "w-1")).replies == originals[1], "noted while loading")
        #expect(h.log.commandLookups == 7)

        let restarted = try EngineHarness(log: h.log)
        let lookups = h.log.commandLookups
        #expect(restarted.call(Self.push("S2", id: "w-2")).replies == originals[2], "from the store")
        #expect(h.log.commandLookups == lookups + 1)
    }

    /// Replies past the byte bound go as those past the count bound do: once durable, a retry of one
    /// is answered from the store, while the newest are still answered from memory.
    @Test func repliesPastTheByteBoundAreLookedUpInTheStore() throws {
        let h = try EngineHarness()
        h.core.recentCommands = RecentCommands(capacity: 100, byteLimit: 600)
        _ = h.call(Self.create)
        var originals: [[JSON]] = []
        for index in 0..<8 { originals.append(h.call(Self.push("S\(index)", id: "w-\(index)")).replies) }
        #expect(h.core.recentCommands.count < 8 && h.core.recentCommands.bytes <= 600)
        let lookups = h.log.commandLookups
        #expect(h.call(Self.push("S7", id: "w-7")).replies == originals[7])
        #expect(h.log.commandLookups == lookups, "the newest from memory")
        let retry = h.call(Self.push("S0", id: "w-0"))
        #expect(retry.appended.isEmpty && retry.replies == originals[0])
        #expect(h.log.commandLookups == lookups + 1, "the oldest from the store")
    }

    /// A lookup the store cannot answer refuses the command with `unavailable` and applies nothing:
    /// taking the id for new would fail the commit on the `commands` key.
    @Test func aFailedLookupRefusesTheCommand() throws {
        let h = try EngineHarness()
        _ = h.call(Self.create)
        h.log.failure = StoreError(kind: .io, message: "gone")
        let out = h.call(Self.push("A", id: "a"))
        #expect(out.reply["ok"] == false && out.reply["id"] == "a")
        #expect(out.reply["error"]?["code"] == "unavailable")
        #expect(out.reply["error"]?["message"]?.stringValue?.contains("nothing was applied") == true)
        #expect(out.appended.isEmpty && h.core.fleet.lastSeq == 1)
        // Said in the log, the first at once and the rest counted, as failed commits are: a client
        // retrying under one id commits nothing, so these lines are what shows the outage.
        #expect(
            out.logLines == [
                "Could not look up a command id in the log: unavailable: gone. Commands whose id must be looked "
                    + "up get unavailable until storage recovers."
            ], "\(out.logLines)")
        #expect(h.call(Self.push("A", id: "a")).logLines.isEmpty, "counted, not logged again within a second")
        h.log.failure = nil
        #expect(h.call(Self.push("A", id: "a")).logLines.isEmpty, "said once it has lasted a second")
        h.move(frames: 61)
        #expect(
            h.core.step(.housekeeping(now: h.now)).logLines
                == ["Command id lookups succeed again, after 2 failed lookup(s)."])
    }

    // MARK: Owners

    /// A gesture belongs to the `owner` that began it: another owner's update is refused.
    @Test(arguments: [("thumb", true), ("other", false)])
    func gesturesBelongToTheirOwner(owner: String, allowed: Bool) throws {
        let h = try EngineHarness()
        _ = h.call(Self.create)
        _ = h.call(Self.push("A"))
        let begin = h.call(#"{"cmd":"begin","navigator":"r","operation":"pop","owner":"thumb"}"#).reply
        #expect(begin["ok"] == true, "\(begin.serialized())")
        let update = h.call(#"{"cmd":"update","navigator":"r","percent":0.4,"owner":"\#(owner)"}"#).reply
        #expect(update["ok"] == .bool(allowed), "\(update.serialized())")
        if !allowed { #expect(update["error"]?["code"] == "not_owner") }
    }
}
