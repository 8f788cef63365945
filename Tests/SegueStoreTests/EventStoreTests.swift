import Foundation
import SegueCore
import Testing

@testable import SegueStore

@Suite struct EventStoreTests {
    /// With and without the events' wire bodies in the unit (the daemon's path copies each `data`
    /// column from them): the same events read back.
    @Test(arguments: Backend.allCases, [false, true])
    func appendedEventsReadBackInOrderAfterReopen(backend: Backend, withBodies: Bool) throws {
        let place = try LogPlace(backend)
        var numberer = Numberer()
        var units = [numberer.unit("main", count: 2), numberer.unit("side"), numberer.unit("main", count: 3)]
        if withBodies {
            for index in units.indices { units[index].encoded = units[index].events.map { $0.encodedWithData() } }
        }
        do {
            let store = try place.open()
            for unit in units { try store.append(unit) }
            #expect(store.lastSeq == 6)
            store.close()
        }
        let store = try place.open()
        #expect(store.lastSeq == 6)
        #expect(try store.allEvents() == units.flatMap(\.events))
        #expect(try store.lastRevision(of: "main") == 5)
        #expect(try store.lastRevision(of: "side") == 1)
        #expect(try store.lastRevision(of: "nobody") == 0)
        #expect(try store.navigators() == ["main", "side"])
        #expect(try store.events(after: 2, navigator: "main", limit: 2).map(\.seq) == [4, 5])
        #expect(try store.events(after: 0, navigator: nil, limit: 2).map(\.seq) == [1, 2])
        #expect(try store.events(of: "main", after: 1, upTo: 5).map(\.seq) == [2, 4, 5])
    }

    /// Each row: how to spoil the next unit's numbering, and the error kind expected.
    static let misnumbered: [(name: String, seqShift: Int64, revisionShift: Int64)] = [
        ("seq gap", 1, 0),
        ("seq repeat", -1, 0),
        ("revision gap", 0, 1),
        ("revision repeat", 0, -1),
    ]

    @Test(arguments: Backend.allCases, misnumbered)
    func misnumberedUnitIsRejectedAndNothingOfItWritten(
        backend: Backend, misnumbering: (name: String, seqShift: Int64, revisionShift: Int64)
    ) throws {
        let (seqShift, revisionShift) = (misnumbering.seqShift, misnumbering.revisionShift)
        let place = try LogPlace(backend)
        let store = try place.open()
        var numberer = Numberer()
        try store.append(numberer.unit("main", count: 2))
        var bad = numberer.unit("main", count: 2)
        for index in bad.events.indices {
            bad.events[index].seq += seqShift
            bad.events[index].revision += revisionShift
        }
        #expect(throws: StoreError.self) { try store.append(bad) }
        do {
            try store.append(bad)
        } catch {
            #expect(error.kind == .outOfSequence)
            #expect(error.code == .conflict)
        }
        #expect(try store.allEvents().count == 2)
        // The correctly numbered unit still goes in afterwards.
        var good = Numberer(seq: 2, revisions: ["main": 2])
        try store.append(good.unit("main", count: 2))
        #expect(checkGapless(try store.allEvents()) == nil)
        #expect(store.lastSeq == 4)
    }

    @Test(arguments: Backend.allCases)
    func commandReplySurvivesRestartAndDuplicateIdIsRejected(backend: Backend) throws {
        let place = try LogPlace(backend)
        var numberer = Numberer()
        let reply: JSON = ["ok": true, "id": "c1", "revision": 1, "seq": 1]
        do {
            let store = try place.open()
            try store.append(numberer.unit("main", commandID: "c1", reply: reply))
            #expect(try store.reply(forCommand: "c1") == reply)
            store.close()
        }
        let store = try place.open()
        #expect(try store.reply(forCommand: "c1") == reply)
        #expect(try store.reply(forCommand: "c2") == nil)
        do {
            try store.append(numberer.unit("main", commandID: "c1", reply: reply))
            Issue.record("a second append with command id c1 was accepted")
        } catch {
            #expect(error.kind == .duplicateCommand)
        }
        #expect(store.lastSeq == 1)
    }

    @Test(arguments: Backend.allCases)
    func snapshotsAreKeptPerNavigatorAndFoundAtOrBeforeASeq(backend: Backend) throws {
        let place = try LogPlace(backend)
        let store = try place.open()
        try store.saveSnapshot(navigator: "main", seq: 3, revision: 2, state: ["stack": ["a", "b"]])
        try store.saveSnapshot(navigator: "main", seq: 9, revision: 5, state: ["stack": ["a"]])
        try store.saveSnapshot(navigator: "side", seq: 4, revision: 1, state: ["stack": []])
        #expect(
            try store.latestSnapshots() == [
                Snapshot(navigator: "main", seq: 9, revision: 5, state: ["stack": ["a"]]),
                Snapshot(navigator: "side", seq: 4, revision: 1, state: ["stack": []]),
            ])
        #expect(try store.snapshot(of: "main", atOrBefore: 8)?.seq == 3)
        #expect(try store.snapshot(of: "main", atOrBefore: 9)?.seq == 9)
        #expect(try store.snapshot(of: "main", atOrBefore: 2) == nil)
    }

    /// Lease rows: raised, never lowered by a raise; lowered only from the value they still hold;
    /// each row on its own; all kept across a reopen.
    @Test(arguments: Backend.allCases)
    func leaseRowsOnlyRiseExceptFromTheValueTheyHold(backend: Backend) throws {
        let place = try LogPlace(backend)
        var store = try place.open()
        func frame(_ shard: Int) throws -> Int64? {
            try store.snapshot(of: FrameLeaseRows.name(shard: shard), atOrBefore: .max)?.state["frame"]?.int64Value
        }
        try store.raiseLease(shards: [1: 1, 2: 1], to: 100)
        try store.raiseLease(shards: [1: 1], to: 90)
        #expect(try frame(1) == 100 && frame(2) == 100, "a raise never lowers")
        try store.raiseLease(shards: [2: 1], to: 160)
        try store.lowerLease(shards: [1: 1, 2: 1], from: 100, to: 40)
        #expect(try frame(1) == 40, "lowered from the value it held")
        #expect(try frame(2) == 160, "raised since by another: kept")
        try store.raiseLease(shards: [1: 1], to: 41)
        try store.raiseLease(shards: nil, to: 7)
        store.close()
        store = try place.open()
        #expect(try frame(1) == 41 && frame(2) == 160)
        #expect(try store.snapshot(of: FrameLeaseRows.name(shard: nil), atOrBefore: .max)?.state["frame"] == 7)
        #expect(try store.snapshot(of: FrameLeaseRows.name(shard: 1), atOrBefore: .max)?.seq == .max)
    }

    /// Names that sort close together, by bytes (a prefix, a space, upper before lower case, UTF-8),
    /// each with several snapshots: the newest of each, in that order; none at all for an empty table.
    @Test(arguments: Backend.allCases)
    func latestSnapshotsTakeEachNavigatorsNewestInByteOrder(backend: Backend) throws {
        let place = try LogPlace(backend)
        let store = try place.open()
        #expect(try store.latestSnapshots() == [])
        let names = ["é", "ab", "a", "B", "a b", "a\u{1}"]
        for (index, name) in names.enumerated() {
            for round in 0..<3 {
                let seq = Int64(10 * round + index + 1)
                try store.saveSnapshot(
                    navigator: name, seq: seq, revision: Int64(round + 1), state: ["round": .int(round)])
            }
        }
        let latest = try store.latestSnapshots()
        #expect(latest.map(\.navigator) == names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        #expect(latest.allSatisfy { $0.revision == 3 && $0.state == ["round": .int(2)] })
    }

    @Test(arguments: Backend.allCases)
    func groupCommitStoresEveryUnitOfConcurrentProducersGaplessly(backend: Backend) throws {
        let place = try LogPlace(backend)
        let store = try place.open()
        let numbering = NSLock()
        nonisolated(unsafe) var numberer = Numberer()
        let failures = Counter()
        DispatchQueue.concurrentPerform(iterations: 8) { producer in
            for _ in 0..<50 {
                let done = DispatchSemaphore(value: 0)
                numbering.lock()
                let unit = numberer.unit("nav-\(producer)", count: 1 + producer % 3)
                store.submit(unit) { result in
                    if case .failure = result { failures.increment() }
                    done.signal()
                }
                numbering.unlock()
                done.wait()
            }
        }
        #expect(failures.value == 0)
        let events = try store.allEvents()
        #expect(checkGapless(events) == nil)
        #expect(Int64(events.count) == numberer.seq)
    }

    @Test(arguments: Backend.allCases)
    func closeDrainsPendingWorkAndLaterAppendsFailClosed(backend: Backend) throws {
        let place = try LogPlace(backend)
        let store = try place.open()
        var numberer = Numberer()
        let acknowledged = Counter()
        for _ in 0..<20 {
            store.submit(numberer.unit("main")) { result in
                if case .success = result { acknowledged.increment() }
            }
        }
        store.close()
        #expect(acknowledged.value == 20)
        #expect(throws: StoreError.self) { try store.append(numberer.unit("main")) }
        #expect(try store.allEvents().count == 20)
    }

    @Test(arguments: Backend.allCases)
    func integrityCheckOfASoundLogFindsNothing(backend: Backend) throws {
        let place = try LogPlace(backend)
        let store = try place.open()
        var numberer = Numberer()
        try store.append(numberer.unit("main", count: 10))
        #expect(try store.integrityCheck() == [])
    }
}

/// A thread-safe counter for completions.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

/// `EventStore.command` answers through the write connection while it is idle and the read
/// connection otherwise: both must say the same, right after the commit and for ids never stored.
@Suite struct StoredCommandLookupTests {
    @Test func bothConnectionsAnswerTheSame() throws {
        let directory = TemporaryDirectory()
        let store = try EventStore(path: directory.file("events.db"))
        var numberer = Numberer()
        for index in 0..<20 {
            var unit = numberer.unit("main", commandID: "c\(index)", reply: ["ok": true, "n": .int(Int64(index))])
            unit.fingerprint = index.isMultiple(of: 2) ? UInt64(index) &* 0x9E37_79B9_7F4A_7C15 : nil
            try store.append(unit)
            // `append` returns from the completion, a moment before the committer is idle again.
            store.flush()
            for id in ["c\(index)", "c\(index / 2)", "never-\(index)"] {
                let viaWriter = try #require(
                    store.committer.withWriterIfIdle { $0.command(id) } ?? nil, "the writer answers")
                let viaReader = try store.read { reader throws(StoreError) in try reader.command(id) }
                #expect(try viaWriter.get() == viaReader, "\(id)")
                #expect(try store.command(id) == viaReader, "\(id)")
            }
        }
        #expect(try store.command("c7") == StoredCommand(reply: ["ok": true, "n": 7], fingerprint: nil))
        #expect(try store.command("c8")?.fingerprint == 8 &* 0x9E37_79B9_7F4A_7C15)
        #expect(try store.command("never") == nil)
    }
}
