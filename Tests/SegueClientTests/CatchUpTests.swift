import SegueCore
import SegueProtocol
import Testing

@testable import SegueClient

/// The Clone pattern's bookkeeping: duplicates dropped, the next revision applied, gaps reported
/// with the seq to resume `history` from.
@Suite struct CatchUpTests {
    static func event(_ navigator: String, seq: Int64, revision: Int64) -> EventRecord {
        EventRecord(
            seq: seq, navigator: navigator, revision: revision, type: "interaction.updated", frame: 1, time: 1,
            command: nil, data: [:])
    }

    @Test(arguments: [
        // (snapshot revision, snapshot seq, offered (seq, revision), verdict)
        (Int64(3), Int64(10), (Int64(8), Int64(2)), CatchUp.Verdict.duplicate),
        (3, 10, (9, 3), .duplicate),
        (3, 10, (11, 4), .apply),
        (3, 10, (14, 6), .gap(navigator: "main", after: 10)),
        (0, 0, (1, 1), .apply),
        (0, 0, (5, 2), .gap(navigator: "main", after: 0)),
    ])
    func verdicts(revision: Int64, seq: Int64, offered: (Int64, Int64), verdict: CatchUp.Verdict) {
        var catchUp = CatchUp()
        if revision > 0 { catchUp.snapshot(navigator: "main", revision: revision, seq: seq) }
        #expect(catchUp.offer(Self.event("main", seq: offered.0, revision: offered.1)) == verdict)
    }

    @Test func fillingAGapThenReofferingApplies() {
        var catchUp = CatchUp()
        catchUp.snapshot(navigator: "main", revision: 1, seq: 1)
        let late = Self.event("main", seq: 9, revision: 4)
        #expect(catchUp.offer(late) == .gap(navigator: "main", after: 1))
        // history(navigator: main, after: 1) returns revisions 2...4; 4 is the late one itself.
        #expect(catchUp.offer(Self.event("main", seq: 3, revision: 2)) == .apply)
        #expect(catchUp.offer(Self.event("other", seq: 4, revision: 1)) == .apply)
        #expect(catchUp.offer(Self.event("main", seq: 6, revision: 3)) == .apply)
        #expect(catchUp.offer(Self.event("main", seq: 9, revision: 4)) == .apply)
        #expect(catchUp.offer(late) == .duplicate)
        #expect(catchUp.revisions == ["main": 4, "other": 1])
        #expect(catchUp.seqs["main"] == 9)
    }

    /// Following every navigator from log position 10, with "main" snapshotted at revision 3 as of
    /// seq 12 (two of its events came after the position).
    @Test(arguments: [
        // (offered (navigator, seq, revision), verdict, position after)
        (("main", Int64(9), Int64(2)), CatchUp.Verdict.duplicate, Int64(10)),
        (("main", 11, 3), .duplicate, 11),
        (("other", 11, 1), .apply, 11),
        (("main", 13, 4), .logGap(after: 10), 10),
        (("other", 11, 2), .gap(navigator: "other", after: 0), 10),
    ])
    func everyNavigatorVerdicts(offered: (String, Int64, Int64), verdict: CatchUp.Verdict, position: Int64) {
        var catchUp = CatchUp.following(everyNavigatorFrom: 10)
        catchUp.snapshot(navigator: "main", revision: 3, seq: 12)
        #expect(catchUp.offer(Self.event(offered.0, seq: offered.1, revision: offered.2)) == verdict)
        #expect(catchUp.position == position)
    }

    @Test func followingEveryNavigatorTheLogPositionMovesThroughDuplicatesAndFills() {
        var catchUp = CatchUp.following(everyNavigatorFrom: 10)
        catchUp.snapshot(navigator: "main", revision: 3, seq: 12)
        let late = Self.event("main", seq: 14, revision: 4)
        #expect(catchUp.offer(late) == .logGap(after: 10))
        // history(after: 10): 11 and 12 are in the snapshot, 13 is another navigator's, 14 the late one.
        #expect(catchUp.offer(Self.event("main", seq: 11, revision: 2)) == .duplicate)
        #expect(catchUp.offer(Self.event("main", seq: 12, revision: 3)) == .duplicate)
        #expect(catchUp.offer(Self.event("new", seq: 13, revision: 1)) == .apply)
        #expect(catchUp.offer(Self.event("main", seq: 14, revision: 4)) == .apply)
        #expect(catchUp.position == 14)
        #expect(catchUp.heartbeat(seq: 14) == .none)
        #expect(catchUp.heartbeat(seq: 16) == .log(after: 14))
        // A log that ends before events already seen is another log (a restore from a backup).
        #expect(catchUp.heartbeat(seq: 13) == .rewound)
    }

    @Test(arguments: [
        // (checked through, heartbeat seq, check)
        (Int64(0), Int64(4), CatchUp.Check.navigators),
        (4, 4, .none),
        (4, 9, .navigators),
        (9, 9, .none),
        // Below the last event seen (seq 4) or the last heartbeat checked: the daemon's log went back.
        (0, 3, .rewound),
        (0, 0, .rewound),
        (6, 5, .rewound),
    ])
    func namedNavigatorsAreCheckedWhenTheLogMovedPastTheLastCheck(checked: Int64, seq: Int64, check: CatchUp.Check) {
        var catchUp = CatchUp()
        // The named navigators' own events do not count as checked: another one may have lost one.
        catchUp.snapshot(navigator: "main", revision: 2, seq: 3)
        #expect(catchUp.offer(Self.event("main", seq: 4, revision: 3)) == .apply)
        catchUp.checked(through: checked)
        #expect(catchUp.heartbeat(seq: seq) == check)
    }

    @Test func anOlderSnapshotNeverRewinds() {
        var catchUp = CatchUp()
        catchUp.snapshot(navigator: "main", revision: 5, seq: 20)
        catchUp.snapshot(navigator: "main", revision: 3, seq: 12)
        #expect(catchUp.revisions["main"] == 5)
        #expect(catchUp.seqs["main"] == 20)
    }
}

/// Replies and errors read from wire JSON.
@Suite struct ReplyDecodingTests {
    @Test func rejectionKeepsCodeMessageAndDetails() {
        let reply: JSONObject = [
            "ok": false, "id": "x", "error": ["code": "conflict", "message": "Expected revision 3.", "revision": 5],
        ]
        #expect(
            SegueClientError.rejection(reply)
                == .rejected(code: .conflict, message: "Expected revision 3.", details: ["revision": 5]))
        #expect(SegueClientError.rejection(reply).code == .conflict)
        #expect(
            SegueClientError.rejection(["ok": false])
                == .malformed("an ok: false reply without error.code and error.message"))
        // A code from a newer daemon: internal here, the daemon's own word kept in details.
        let newer = SegueClientError.rejection(["ok": false, "error": ["code": "overheated", "message": "m"]])
        #expect(newer.code == .internal && newer.details["code"] == "overheated")
    }

    @Test func timeoutSaysWhatToCheck() {
        #expect(
            SegueClientError.timeout(command: "push", waited: .milliseconds(1500)).description
                == "timeout: push got no reply within 1.5 s; is segued running at this endpoint?")
    }

    @Test func commandReplyReadsTheDocumentedMembers() throws {
        let reply = try CommandReply([
            "ok": true, "id": "a", "navigator": "main", "revision": 4, "seq": 9, "frame": 100, "transition": 2,
            "decision": "finish", "phase": "finishing",
        ])
        #expect(reply.revision == 4)
        #expect(reply.seq == 9)
        #expect(reply.transition == 2)
        #expect(reply.decision == "finish")
        #expect(throws: WireError(.badRequest, "a command reply without revision and seq")) {
            try CommandReply(["ok": true])
        }
    }

    @Test func tickKeepsItsBytes() throws {
        let body = Array(
            #"{"navigator":"m","transition":1,"frame":5,"phase":"animating","fraction":0.5,"progress":0.6,"final":false}"#
                .utf8)
        let publication = try Publication(topic: Array("tick/m/".utf8), body: body)
        guard case .tick(let tick) = publication else {
            Issue.record("not a tick")
            return
        }
        #expect(tick.bytes == body)
        #expect(tick.fraction == 0.5)
        #expect(throws: WireError.self) { try Publication(topic: Array("nope/".utf8), body: Array("{}".utf8)) }
    }
}
