import Foundation
import SegueCore
import Synchronization
import Testing

@testable import SegueStore

/// The fast commit path: duplicate command ids found by the commands table's primary key, a backlog
/// split into bounded transactions with tasks kept in place, and a WAL file that outlives a close.
@Suite struct CommitPathTests {
    /// Each row: where the first use of the command id is, relative to the duplicate.
    static let firstUses: [(name: String, sameBatch: Bool)] = [("earlier commit", false), ("same batch", true)]

    @Test(arguments: Backend.allCases, firstUses)
    func duplicateCommandIdWritesNothingOfItsUnitAndTheBatchGoesOn(
        backend: Backend, firstUse: (name: String, sameBatch: Bool)
    ) throws {
        let sameBatch = firstUse.sameBatch
        let place = try LogPlace(backend)
        let store = try place.open()
        defer { store.close() }
        var numberer = Numberer()
        let first = numberer.unit("a", commandID: "c1", reply: ["ok": true, "n": 1])
        if !sameBatch {
            try store.append(first)
            store.flush()  // the committer thread goes idle just after the completion: wait for it
        }
        // The duplicate takes no seq: the unit after it is numbered right after `first`.
        var retry = numberer
        let duplicate = retry.unit("a", commandID: "c1", reply: ["ok": true, "n": 2])
        let next = numberer.unit("b", commandID: "c2", reply: ["ok": true])
        let units = sameBatch ? [first, duplicate, next] : [duplicate, next]
        let results = try #require(store.commitIfIdle(units))
        let kinds = results.map { $0.failure?.kind }
        #expect(kinds == (sameBatch ? [nil, .duplicateCommand, nil] : [.duplicateCommand, nil]))
        #expect(results.first { $0.failure != nil }?.failure?.code == .conflict)
        #expect(try store.reply(forCommand: "c1") == ["ok": true, "n": 1])
        #expect(try store.reply(forCommand: "c2") == ["ok": true])
        let events = try store.allEvents()
        #expect(events.map(\.navigator) == ["a", "b"])
        #expect(checkGapless(events) == nil)
        #expect(store.lastSeq == 2)
    }

    /// A row another connection wrote takes a seq the batch is about to use. The events inserts say
    /// `OR ROLLBACK`, so SQLite itself ends the transaction at the collision: nothing of the batch may
    /// stay, whether the collision is in the first multi-row statement, after two have succeeded, or
    /// in the statement of the remainder after them, and the writer must carry on from the file's
    /// real end.
    @Test(arguments: [5, 40, 49])
    func aCollisionInsideTheEventsInsertsFailsTheWholeBatch(collidingEvent: Int) throws {
        let directory = TemporaryDirectory()
        let store = try EventStore(path: directory.file("log.db"))
        defer { store.close() }
        var numberer = Numberer()
        try store.append(numberer.unit("first"))
        store.flush()
        let intruderSeq = Int64(2 + collidingEvent)
        let other = try Database(path: directory.file("log.db"))
        try other.execute(
            "INSERT INTO events (seq, navigator, revision, type, version, frame, time, command, data) "
                + "VALUES (\(intruderSeq), 'intruder', 1, 'navigator.created', 1, 0, 0, NULL, '{}')")
        // 10 units of 5 events over 10 navigators: rows 1-16, 17-32 and 33-48 go in 16-row
        // statements, 49 and 50 in one statement of two.
        let units = (0..<10).map { numberer.unit("n\($0)", count: 5) }
        let results = try #require(store.commitIfIdle(units))
        #expect(results.count == 10)
        // Every unit fails with the collision itself, not with anything decided before the insert.
        #expect(results.allSatisfy { $0.failure?.extendedCode == LogWriter.constraintPrimaryKey })
        let events = try store.allEvents()
        #expect(events.map(\.seq) == [1, intruderSeq])
        #expect(store.lastSeq == intruderSeq)
        var renumbered = Numberer(seq: store.lastSeq, revisions: ["first": 1])
        try store.append(renumbered.unit("first"))
        #expect(try store.allEvents().map(\.seq) == [1, intruderSeq, intruderSeq + 1])
    }

    /// Which way a unit reaches the writer: on the caller's thread while it is idle, or queued for
    /// the committer thread.
    enum Path: String, CaseIterable, Sendable { case inline, queued }

    /// After a unit of generation 1 fails, a unit of generation 1 is refused unrun even where it
    /// continues the log (it was decided on top of the failed one), on either path; generation 2
    /// and a unit without one commit.
    @Test(arguments: Backend.allCases, Path.allCases)
    func aUnitDecidedAfterAFailedOneOfItsGenerationIsRefused(backend: Backend, path: Path) throws {
        let place = try LogPlace(backend)
        let store = try place.open()
        defer { store.close() }
        func commit(_ unit: AppendUnit) throws -> Result<Void, StoreError> {
            store.flush()
            switch path {
            case .inline: return try #require(store.commitIfIdle([unit])?.first)
            case .queued: return Result { () throws(StoreError) in try store.append(unit) }
            }
        }
        var numberer = Numberer()
        try commit(AppendUnit(events: numberer.unit("a").events, generation: 1)).get()
        var gap = Numberer(seq: 5)
        #expect(try commit(AppendUnit(events: gap.unit("b").events, generation: 1)).failure?.kind == .outOfSequence)
        var after = numberer
        let refused = try commit(AppendUnit(events: after.unit("c").events, generation: 1))
        #expect(refused.failure == StoreError.decidedAfterAFailure)
        try commit(AppendUnit(events: numberer.unit("c").events, generation: 2)).get()
        try commit(AppendUnit(events: numberer.unit("d").events)).get()
        #expect(try store.allEvents().map(\.navigator) == ["a", "c", "d"])
    }

    /// A batch whose first unit does not continue the log, and whose second, numbered on top of it,
    /// fits the log's end by chance (the writer's end is past what the caller knew, as after
    /// another writer's append on a shared log): both are refused, nothing of them written.
    @Test(arguments: Backend.allCases)
    func aUnitNumberedAfterARefusedOneOfItsBatchIsRefused(backend: Backend) throws {
        let place = try LogPlace(backend)
        let store = try place.open()
        defer { store.close() }
        var numberer = Numberer()
        try store.append(numberer.unit("a"))
        store.flush()
        var stale = Numberer()
        let units = [stale.unit("b"), stale.unit("c")]
        #expect(units[1].events[0].seq == store.lastSeq + 1, "the second fits the log's end")
        let results = try #require(store.commitIfIdle(units))
        #expect(results.map { $0.failure?.kind } == [.outOfSequence, .outOfSequence])
        #expect(results[1].failure?.message.contains("numbered after an append of the same batch") == true)
        #expect(try store.allEvents().map(\.navigator) == ["a"])
        // The next batch is checked afresh.
        try #require(store.commitIfIdle([numberer.unit("c")])?.first).get()
    }

    /// Batches of these many events cover full 16-row inserts, remainders of every kind after them
    /// (one row, two, fifteen), and a batch that is only a remainder.
    @Test(arguments: Backend.allCases, [1, 2, 15, 16, 17, 31, 50])
    func everyColumnOfABatchReadsBackExactly(backend: Backend, events: Int) throws {
        let place = try LogPlace(backend)
        let store = try place.open()
        defer { store.close() }
        var numberer = Numberer()
        var units: [AppendUnit] = []
        var count = 0
        while count < events {
            let size = min(1 + units.count % 3, events - count)
            let navigator = ["a", "b", "ünïcode nav"][units.count % 3]
            let command = units.count % 2 == 0 ? "cmd-\(units.count)" : nil
            units.append(numberer.unit(navigator, count: size, commandID: command, reply: command.map { .string($0) }))
            count += size
        }
        let results = try #require(store.commitIfIdle(units))
        for result in results { try result.get() }
        #expect(try store.allEvents() == units.flatMap(\.events))
        for unit in units where unit.commandID != nil {
            #expect(try store.reply(forCommand: unit.commandID!) == unit.reply)
        }
    }

    @Test func backlogIsCommittedInBoundedBatchesWithTasksInPlace() throws {
        let directory = TemporaryDirectory()
        let writer = LogWriter(path: directory.file("log.db"), durability: .full, busyTimeoutMilliseconds: 1000)
        try writer.open(quickCheck: false)
        let committer = GroupCommitter(writer: writer, maxBatchUnits: 8)
        defer { committer.close() }
        let order = Mutex<[String]>([])
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        Thread {
            _ = try? committer.perform { _ in
                entered.signal()
                release.wait()
            }
        }.start()
        entered.wait()
        // Queued while the writer is held: 20 units, a task that sees how far the log got, 5 more.
        var numberer = Numberer()
        for index in 0..<25 {
            if index == 20 {
                Thread {
                    _ = try? committer.perform { writer in order.withLock { $0.append("task@\(writer.lastSeq)") } }
                }.start()
                while committer.queuedTaskCount == 0 { usleep(1000) }
            }
            committer.submit(numberer.unit("a")) { result in
                order.withLock { $0.append(result.failure == nil ? "unit" : "failed") }
            }
        }
        let commitsBefore = committer.commits.load(ordering: .relaxed)
        release.signal()
        committer.flush()
        let seen = order.withLock { $0 }
        #expect(seen == Array(repeating: "unit", count: 20) + ["task@20"] + Array(repeating: "unit", count: 5))
        // 20 units in batches of at most 8, then 5: at least four transactions.
        #expect(committer.commits.load(ordering: .relaxed) - commitsBefore >= 4)
        #expect(writer.lastSeq == 25)
    }

    @Test func theWALFileIsKeptAcrossCloseAndTheLogReopens() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("log.db")
        var numberer = Numberer()
        do {
            let store = try EventStore(path: path)
            for _ in 0..<10 { try store.append(numberer.unit("main")) }
            store.close()
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: path + "-wal")
        #expect((attributes[.size] as? Int ?? 0) > 0)
        let store = try EventStore(path: path)
        defer { store.close() }
        #expect(store.lastSeq == 10)
        try store.append(numberer.unit("main"))
        #expect(checkGapless(try store.allEvents()) == nil)
        #expect(try store.integrityCheck() == [])
    }
}
