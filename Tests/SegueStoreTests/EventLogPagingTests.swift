import Foundation
import SegueCore
import Testing

@testable import SegueStore

/// `EventLog.forEachEvent` reads a page at a time, each its own read: a slow reader beside a running
/// writer (an export into a pager, a replay paced in real time) must not hold a snapshot that keeps
/// the writer's WAL from starting over, and sees the log as it was when the walk began.
@Suite struct EventLogPagingTests {
    @Test func aSlowReaderHoldsNoSnapshotBetweenEvents() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("events.db")
        let writer = try EventStore(path: path)
        defer { writer.close() }
        var numberer = Numberer()
        for _ in 0..<250 { try writer.append(numberer.unit("main", count: 10)) }
        let log = try EventLog(path: path)
        let other = try Database(path: path, create: false)
        // A checkpoint the writer runs at that moment is waited out, not counted as the walk's.
        other.setBusyTimeout(milliseconds: 5_000)
        var seqs: [Int64] = []
        var busy: [Int64] = []
        try log.forEachEvent(after: 0, through: .max) { (event: EventRecord) throws(StoreError) in
            seqs.append(event.seq)
            // Mid-page and between pages: the writer goes on, and a checkpoint can restart the WAL.
            if event.seq == 500 || event.seq == 1_001 {
                do { try writer.append(numberer.unit("main")) } catch { Issue.record("append: \(error)") }
                busy.append(try other.scalarInt("PRAGMA wal_checkpoint(TRUNCATE)"))
            }
        }
        #expect(seqs == Array(1...2_500), "every event once, in order, none appended during the walk")
        #expect(busy == [0, 0], "a checkpoint blocked by the walk's read")
        var tail: [Int64] = []
        try log.forEachEvent(after: 2_490, through: 2_495) { tail.append($0.seq) }
        #expect(tail == Array(2_491...2_495))
    }
}
