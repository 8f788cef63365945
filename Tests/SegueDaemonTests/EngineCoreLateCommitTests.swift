import SegueCore
import SegueProtocol
import SegueStore
import Testing

@testable import SegueDaemon

/// A batch whose commit outcome was lost (PostgreSQL's connection dropped before COMMIT answered)
/// fails, and the fleet rolls it back; when the store finds it committed after all, the commands
/// decided meanwhile were numbered on the same seqs and can never be stored. Nothing of them may be
/// acknowledged, remembered or kept in the fleet: the fleet becomes the fold of the log.
@Suite struct EngineCoreLateCommitTests {
    static let create = #"{"cmd":"create","navigator":"r","root":"Home"}"#
    static func push(_ screen: String, id: String) -> String {
        #"{"cmd":"push","navigator":"r","screen":"\#(screen)","animated":false,"id":"\#(id)"}"#
    }
    static let lost = StoreError(kind: .io, message: "Not stored: the connection was lost during the commit")

    /// Hands out the turn's units and answers them all with `failure`; returns the actions and units.
    static func commitFailing(_ h: EngineHarness, _ failure: StoreError) -> ([EngineAction], [AppendUnit]) {
        var out = h.core.step(.commit)
        let units = out.appended
        for case .append(let batch, let epoch) in out {
            out += h.core.step(
                .committed(
                    batch.map { EngineCompletion(epoch: epoch, for: $0, result: .failure(failure)) }))
        }
        return (out, units)
    }

    /// `r` created, then a push of A whose outcome is lost: refused with unavailable, rolled back,
    /// yet committed.
    static func lostPushStoredAfterAll(_ h: EngineHarness) {
        _ = h.call(Self.create)
        _ = h.send(Self.push("A", id: "a"))
        let (first, firstUnits) = Self.commitFailing(h, Self.lost)
        #expect(first.reply["error"]?["code"] == "unavailable")
        for unit in firstUnits { h.log.store(unit) }
    }

    @Test func commandsNumberedOnALateCommittedBatchAreNeverAcknowledged() throws {
        let h = try EngineHarness()
        Self.lostPushStoredAfterAll(h)
        // The next push was numbered where the first one is: its commit cannot succeed.
        _ = h.send(Self.push("B", id: "b"))
        let (second, _) = Self.commitFailing(h, StoreError(kind: .outOfSequence, message: "does not continue the log"))
        #expect(second.replies.allSatisfy { $0["ok"] != true }, "\(second.replies.map { $0.serialized() })")
        // The first push's events are published as the log holds them, byte for byte, each with the
        // digest a fold of the log gives it (the log keeps none); nothing of the second push is.
        let stored = h.log.events.filter { $0.seq > 1 }
        #expect(!stored.isEmpty)
        let bodies = second.messages.compactMap { message -> [UInt8]? in
            guard case .publish(let topic, let body) = message, topic == Array("event/r/".utf8) else { return nil }
            return body
        }
        let digested = try PastFold(clock: h.clock, reader: h.log).withDigests(stored)
        #expect(digested.allSatisfy { $0.digest != nil })
        #expect(bodies == digested.map { $0.encodedWithData().bytes }, "\(second.events.map { $0.serialized() })")
        // The fleet is the fold of the log: A is on the stack, B is not, and numbering goes on from it.
        let state = h.call(#"{"cmd":"state","navigator":"r"}"#).reply
        #expect(state["revision"]?.int64Value == h.log.events.filter { $0.navigator == "r" }.last?.revision)
        #expect(state["stack"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["Home", "A"])
        let third = h.call(Self.push("C", id: "c")).reply
        #expect(third["ok"] == true, "\(third.serialized())")
        #expect(h.log.events.map(\.seq) == Array(1...Int64(h.log.events.count)), "the log stays gapless")
        // A retry of the second push is a new command now, not the answer it never got.
        #expect(h.call(Self.push("B", id: "b")).reply["ok"] == true)
        let after = h.call(#"{"cmd":"state","navigator":"r"}"#).reply
        #expect(after["stack"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["Home", "A", "C", "B"])
    }

    /// On PostgreSQL the store refuses the batch numbered behind the rollback as one that does not
    /// continue the log; its commands are decided again on the log as read back, not answered
    /// `unavailable` once the database is back, and their replies keep their client's order.
    @Test func onPostgreSQLTheBatchNumberedBehindIsDecidedAgain() throws {
        let h = try EngineHarness { $0.commitOutcomeCanBeLost = true }
        Self.lostPushStoredAfterAll(h)
        _ = h.send(Self.push("B", id: "b"))
        _ = h.send(#"{"cmd":"ping","id":"after-b"}"#)
        let mismatch = StoreError(
            kind: .outOfSequence,
            message: "Event seq 4 does not continue the log, whose next seq is 6. Renumber from the store's "
                + "lastSeq and resubmit.")
        let (second, _) = Self.commitFailing(h, mismatch)
        #expect(second.replies.isEmpty, "nothing answered yet: \(second.replies.map { $0.serialized() })")
        // The next turn decides B again, after A, and its commit goes through.
        let rerun = h.advance(frames: 1)
        let ids = rerun.replies.map { $0["id"]?.stringValue }
        #expect(ids == ["b", "after-b"], "\(rerun.replies.map { $0.serialized() })")
        #expect(rerun.replies.first?["ok"] == true)
        let state = h.call(#"{"cmd":"state","navigator":"r"}"#).reply
        #expect(state["stack"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["Home", "A", "B"])
        #expect(h.log.events.map(\.seq) == Array(1...Int64(h.log.events.count)), "the log stays gapless")
    }

    /// Without a store that can lose an outcome (SQLite), or on PostgreSQL when the log holds nothing
    /// past what the engine confirmed (no late commit explains the refusal), the same refusal leaves
    /// the commands answered `unavailable`.
    @Test(arguments: [false, true])
    func withoutALateCommitTheBatchIsAnsweredUnavailable(onPostgreSQL: Bool) throws {
        let h = try EngineHarness { $0.commitOutcomeCanBeLost = onPostgreSQL }
        _ = h.call(Self.create)
        _ = h.send(Self.push("B", id: "b"))
        let mismatch = StoreError(
            kind: .outOfSequence,
            message: "Event seq 2 does not continue the log, whose next seq is 4. Renumber from the store's "
                + "lastSeq and resubmit.")
        let (second, _) = Self.commitFailing(h, mismatch)
        #expect(second.reply["error"]?["code"] == "unavailable")
    }
}
