import Foundation
import SegueCore
import Synchronization
import Testing

@testable import SegueStore

/// Background WAL checkpoints (`WALCheckpointer`): commits go on while a pass copies the WAL, the WAL
/// still restarts and stays bounded, a reader pinning old frames falls back to inline checkpoints,
/// and nothing committed is lost or reordered by any of it.
@Suite struct WALCheckpointTests {
    /// Small, so a test sees many passes without writing megabytes: the limit is 8 × this.
    static let threshold: Int32 = 32
    /// WAL frame: 24-byte header and a 4 KiB page (SQLite's default page size, which the store keeps).
    static let frameBytes = 24 + 4096

    @Test(arguments: [Durability.full, .relaxed])
    func backgroundPassesKeepTheWALShortAndLoseNothing(durability: Durability) throws {
        let directory = TemporaryDirectory()
        let path = directory.file("log.db")
        let units = 3000
        do {
            let store = try EventStore(path: path, durability: durability, checkpointThreshold: Self.threshold)
            defer { store.close() }
            var numberer = Numberer()
            for index in 0..<units {
                // Two navigators and an id now and then, so index pages of both kinds move.
                let id = index % 7 == 0 ? "c\(index)" : nil
                let unit = numberer.unit(index % 2 == 0 ? "a" : "b", commandID: id, reply: id.map { .string($0) })
                try commit(unit, store)
            }
            let counts = store.walCheckpoints
            // Whether a restart needed the writer's catch-up depends on when each pass ends; that
            // the WAL restarts does not.
            #expect(counts.background >= 1)
            #expect(counts.restarts >= 1)
            #expect(counts.failures == 0)
        }
        // Without checkpoints the WAL would hold every commit: at least two frames each, 24 MB. With
        // them it restarts, and its file keeps its longest length: the threshold plus what was
        // committed while a pass ran, never more than the limit (where the writer waits for the pass)
        // plus one commit's frames: up to 16 when the commit splits B-tree pages (a run on a loaded
        // machine ended 12 frames past the limit).
        let walBytes = try #require(FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int)
        #expect(walBytes <= (Int(Self.threshold) * 8 + 16) * Self.frameBytes + 32)

        let reopened = try EventStore(path: path, durability: durability)
        defer { reopened.close() }
        let events = try reopened.allEvents()
        #expect(events.count == units)
        #expect(checkGapless(events) == nil)
        #expect(try reopened.integrityCheck() == [])
        #expect(try reopened.reply(forCommand: "c2996") == .string("c2996"))
    }

    @Test func aReaderPinningOldFramesFallsBackToInlineCheckpointsUntilItEnds() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("log.db")
        let store = try EventStore(path: path, durability: .relaxed, checkpointThreshold: Self.threshold)
        defer { store.close() }
        var numberer = Numberer()
        func append(_ count: Int) throws {
            for _ in 0..<count { try store.append(numberer.unit("a")) }
        }
        func walFrames() throws -> Int32 {
            try store.withWriter { writer throws(StoreError) in
                try writer.withDatabase { database in database.walFrames }
            }
        }
        try append(10)

        // An operator's `sqlite3` in a read transaction: no checkpoint may copy past what it sees.
        let reader = try Database(path: path, create: false)
        try reader.execute("BEGIN")
        #expect(try reader.scalarInt("SELECT count(*) FROM events") == 10)
        try append(400)
        #expect(try walFrames() > Self.threshold * 8)
        #expect(store.walCheckpoints.forced >= 1)
        // The reader still sees its snapshot; the writer's commits were not held up by it.
        #expect(try reader.scalarInt("SELECT count(*) FROM events") == 10)
        try reader.execute("COMMIT")
        // A pass may still be syncing (slow under a loaded test run): let it end, so what follows is
        // the same on every machine.
        store.committer.checkpointer.waitUntilIdle()

        // The next commit, past the limit, copies everything; the WAL restarts at the write after
        // that and stays short.
        var trace: [Int32] = []
        for _ in 0..<40 {
            try append(1)
            trace.append(try walFrames())
        }
        let restarted = zip(trace, trace.dropFirst()).contains { before, after in after < before }
        #expect(restarted && trace.last! < Self.threshold * 8, "WAL frames after each commit: \(trace)")
        #expect(store.lastSeq == 450)
        #expect(checkGapless(try store.allEvents()) == nil)
        #expect(store.walCheckpoints.failures == 0)
    }

    /// The decision a commit leaves due runs after its results are returned (the daemon sends its
    /// replies first), when the caller asks, or at the next commit.
    @Test func theCheckpointDecisionRunsAfterTheCommitNotInsideIt() throws {
        let directory = TemporaryDirectory()
        let store = try EventStore(
            path: directory.file("log.db"), durability: .relaxed, checkpointThreshold: Self.threshold)
        defer { store.close() }
        let checkDue = { store.committer.checkpointer.checkDue.load(ordering: .acquiring) }
        var numberer = Numberer()
        for index in 0..<400 {
            // Nothing is due or queued when each commit starts (the decision and any copy it handed
            // to the committer thread are done below), so the commit runs here and hands nothing off.
            let results = try #require(store.commitIfIdle([numberer.unit("a")]))
            for result in results { try result.get() }
            #expect(checkDue(), "commit \(index) returned with its checkpoint decision still to run")
            store.checkpointIfDue()
            #expect(!checkDue())
            store.flush()
        }
        #expect(store.walCheckpoints.background >= 1)
        #expect(store.walCheckpoints.restarts >= 1)
        #expect(store.lastSeq == 400)
    }

    /// The daemon's frame loop commits inline (`commitIfIdle`) and takes the checkpoint decisions,
    /// but never copies the WAL itself: a catch-up's two syncs or the backstop's wait for a pass run
    /// on the committer thread, and the loop's next commits queue behind them instead of the loop.
    @Test(arguments: [true, false])
    func inlineCommitsHandTheCopiesToTheCommitterThread(decidingAfterEachCommit: Bool) throws {
        let directory = TemporaryDirectory()
        let path = directory.file("log.db")
        let store = try EventStore(path: path, durability: .relaxed, checkpointThreshold: Self.threshold)
        defer { store.close() }
        // Where each copy ran: whether the committer thread took it first or this one had to wait
        // for it depends on the scheduler, but this thread must never run one.
        let copies = CopyThreads()
        store.committer.writer.beforeCopyForTesting = { _ in copies.note() }
        var numberer = Numberer()
        try store.append(numberer.unit("a"))
        // A reader pinning the first frames keeps the WAL growing past the limit, so the backstop is
        // due after every commit from there on.
        let reader = try Database(path: path, create: false)
        try reader.execute("BEGIN")
        #expect(try reader.scalarInt("SELECT count(*) FROM events") == 1)
        for _ in 0..<400 {
            try commit(numberer.unit("a"), store)
            // The daemon decides after sending replies; without that, the next commit decides first.
            if decidingAfterEachCommit { store.checkpointIfDue() }
        }
        try reader.execute("COMMIT")
        store.flush()
        let (here, elsewhere) = copies.counts
        #expect(here == 0, "\(here) copies ran on the committing thread, \(elsewhere) on the committer thread")
        #expect(elsewhere >= 1)
        #expect(store.walCheckpoints.forced >= 1)
        #expect(store.lastSeq == 401)
        #expect(checkGapless(try store.allEvents()) == nil)
    }

    /// What an earlier process left in the WAL (a killed daemon, a migration) is copied back while
    /// the store opens, not inline in the first command's commit.
    @Test func openingCopiesBackWhatTheWALHolds() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("log.db")
        // A writer whose threshold its ~600 frames never reach: everything it commits stays in the
        // WAL. Not much higher: the store preallocates 4.5 times the threshold (37 MB here).
        let first = try EventStore(path: path, durability: .relaxed, checkpointThreshold: 2_000)
        defer { first.close() }
        var numberer = Numberer()
        for _ in 0..<300 { try first.append(numberer.unit("a")) }
        func fileSize() throws -> Int {
            try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        }
        let before = try fileSize()
        // Still open, so nothing was checkpointed by a close; its lock goes as a killed process's would.
        first.abandonWriterLockForTesting()
        let second = try EventStore(path: path, durability: .relaxed)
        defer { second.close() }
        let after = try fileSize()
        let wal = try #require(FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int)
        #expect(after > before, "segue.db \(before) -> \(after) bytes, WAL \(wal)")
        #expect(first.walCheckpoints.background == 0, "the first writer's threshold was reached")
        #expect(try second.allEvents().count == 300)
    }

    /// Inline when the writer is idle, else behind the copy the committer thread is running.
    private func commit(_ unit: AppendUnit, _ store: EventStore) throws {
        guard let results = store.commitIfIdle([unit]) else { return try store.append(unit) }
        for result in results { try result.get() }
    }

    @Test func aStoreThatNeverFillsItsWALStartsNoCheckpointThread() throws {
        let directory = TemporaryDirectory()
        let store = try EventStore(path: directory.file("log.db"), checkpointThreshold: Self.threshold)
        var numberer = Numberer()
        for result in try #require(store.commitIfIdle([numberer.unit("a")])) { try result.get() }
        #expect(
            store.walCheckpoints == WALCheckpointCounts(background: 0, catchUps: 0, forced: 0, failures: 0, restarts: 0)
        )
        store.close()
        store.close()  // idempotent, with or without a checkpoint thread
    }
}

/// Counts the copies run on the thread that made it and those run on any other.
private final class CopyThreads: Sendable {
    private let caller = pthread_self()
    private let tally = Mutex<(here: Int, elsewhere: Int)>((0, 0))

    func note() {
        let here = pthread_equal(pthread_self(), caller) != 0
        tally.withLock {
            if here { $0.here += 1 } else { $0.elsewhere += 1 }
        }
    }

    var counts: (here: Int, elsewhere: Int) { tally.withLock { $0 } }
}
