import SegueCore
import Testing

@testable import SegueClient

/// Which events a client checks when the daemon's instance changes, and how it judges the answer.
@Suite struct LineageTests {
    static func event(_ seq: Int64, time: Int64 = 0, navigator: String = "main") -> EventRecord {
        EventRecord(
            seq: seq, navigator: navigator, revision: seq, type: "transition.started", frame: 1,
            time: time == 0 ? 1_000 + seq : time, command: nil, data: [:])
    }

    @Test func theSameInstanceAsksNothingAndMovesTheAnchor() {
        var lineage = Lineage(instance: "a")
        lineage.saw(Self.event(1))
        lineage.saw(Self.event(2))
        #expect(lineage.heartbeat(instance: "a") == .same)
        #expect(lineage.anchor == Lineage.Digest(Self.event(2)))
        #expect(lineage.recent.isEmpty)
    }

    @Test func anotherInstanceAsksForTheAnchorAndEverythingSeenSince() {
        var lineage = Lineage(instance: "a")
        lineage.saw(Self.event(1))
        lineage.saw(Self.event(2))
        _ = lineage.heartbeat(instance: "a")
        lineage.saw(Self.event(3))
        #expect(lineage.heartbeat(instance: "b") == .verify([.init(Self.event(2)), .init(Self.event(3))]))
        // Nothing changes until the answer: the next heartbeat asks again.
        #expect(lineage.heartbeat(instance: "b") == .verify([.init(Self.event(2)), .init(Self.event(3))]))
        lineage.adopt("b")
        #expect(lineage.instance == "b")
        #expect(lineage.anchor == Lineage.Digest(Self.event(3)))
        #expect(lineage.heartbeat(instance: "b") == .same)
    }

    @Test(arguments: [
        // (the instance known, the heartbeat's, events seen, expected check is .same)
        (String?.none, String?.some("b"), false, true),  // nothing held: the first instance is taken
        (nil, "b", true, false),  // after a daemon that did not say, the first that does is compared
        ("a", nil, true, true),  // a daemon that does not say: nothing to compare
        ("a", "b", false, true),  // nothing held: nothing to compare
        ("a", "b", true, false),
    ])
    func whenAComparisonIsNeeded(known: String?, heard: String?, seen: Bool, same: Bool) {
        var lineage = Lineage(instance: known)
        if seen { lineage.saw(Self.event(1)) }
        #expect((lineage.heartbeat(instance: heard) == .same) == same)
    }

    /// Another instance that opened the log before what the client knew as of the last heartbeat
    /// (`since`) is on a shorter, restored log: no need to compare events, and it works for a
    /// client holding only snapshots.
    @Test(arguments: [
        // (what the client knew at the last heartbeat, the new instance's since, rewound?)
        (Int64(10), Int64(9), true),
        (10, 10, false),
        (10, 40, false),
        (0, 0, false),
    ])
    func aNewInstanceThatOpenedAShorterLogIsRewound(known: Int64, since: Int64, rewound: Bool) {
        var lineage = Lineage(instance: "a")
        _ = lineage.heartbeat(instance: "a", known: known)
        #expect(lineage.knownAtAnchor == known)
        let check = lineage.heartbeat(instance: "b", since: since, known: known + 5)
        #expect((check == .rewound) == rewound)
        if !rewound { #expect(lineage.instance == "b", "nothing held to compare: taken") }
    }

    /// What a run's own heartbeat counts as known is capped at the seq it reported: replies of a run
    /// that replaced it (restarted during a backlog) may have taught the client more.
    @Test func knownIsCappedAtWhatTheRunReported() {
        var lineage = Lineage(instance: "a")
        _ = lineage.heartbeat(instance: "a", known: 12, reported: 9)
        #expect(lineage.knownAtAnchor == 9)
        // "b" opened the log at 10: past what "a" reported, so not a shorter log.
        #expect(lineage.heartbeat(instance: "b", since: 10, known: 12) == .same)
    }

    /// A heartbeat of a run the lineage moved past, still queued, says nothing (its `since` is old).
    @Test func aReplacedRunsLateHeartbeatIsIgnored() {
        var lineage = Lineage(instance: "a")
        lineage.saw(Self.event(5))
        _ = lineage.heartbeat(instance: "a", known: 5)
        lineage.adopt("b", known: 7)
        #expect(lineage.retired == ["a"])
        #expect(lineage.heartbeat(instance: "a", since: 1, known: 7) == .same)
        #expect(lineage.instance == "b" && lineage.knownAtAnchor == 7)
    }

    @Test(arguments: [
        // (the log's events as (seq, time), held?)
        ([[4, 1_004], [5, 1_005]] as [[Int64]], true),
        ([[4, 1_004], [5, 1_005], [6, 9]], true),  // the log went on: fine
        ([[4, 1_004]], false),  // the log ends before seq 5: restored from an older copy
        ([[4, 1_004], [5, 77]], false),  // seq 5 is another event: a copy that grew past what was seen
        ([[4, 33], [5, 1_005]], false),
    ])
    func holdsComparesEveryDigest(log: [[Int64]], held: Bool) {
        let digests = [Lineage.Digest(Self.event(4)), Lineage.Digest(Self.event(5))]
        #expect(Lineage.holds(digests, in: log.map { Self.event($0[0], time: $0[1]) }) == held)
    }

    /// Past twice the limit the oldest are dropped down to the limit (a backlog of millions of events
    /// costs O(1) per event).
    @Test func onlyTheNewestDigestsAreKeptPastTheLimit() {
        var lineage = Lineage(instance: "a", limit: 3)
        for seq in Int64(1)...6 { lineage.saw(Self.event(seq)) }
        #expect(lineage.recent.map(\.seq) == [1, 2, 3, 4, 5, 6])
        lineage.saw(Self.event(7))
        #expect(lineage.recent.map(\.seq) == [5, 6, 7])
        for seq in Int64(8)...10 { lineage.saw(Self.event(seq)) }
        #expect(lineage.recent.map(\.seq) == [5, 6, 7, 8, 9, 10])
    }
}
