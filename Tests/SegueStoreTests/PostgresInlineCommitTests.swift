import Foundation
import PostgresTestSupport
import SegueCore
import Synchronization
import Testing

@testable import SeguePostgres
@testable import SegueStore

/// A commit on the caller's thread (`commitIfIdle`, the frame loop's) runs no statement there but
/// its batch's: a lost outcome is read back by the committer thread, which hands the results over.
@Suite struct PostgresInlineCommitTests {
    @Test func anInlineCommitWhoseOutcomeIsLostIsReadBackByTheCommitterThread() throws {
        let place = try LogPlace(.postgres)
        let store = try PostgresEventStore(conninfo: place.conninfo!)
        var numberer = Numberer()
        try store.append(numberer.unit("main"))
        // Long enough for no commit here to be handed off for a slow answer under load: only the
        // lost outcome is.
        store.limitInlineCommitWaits(to: .seconds(10))
        nonisolated(unsafe) let admin = try PostgresSchemaTests.admin(place)
        try store.withWriter { writer in
            writer.afterSendingForTesting = { connection in
                // Until the batch is visible to another session: committed on the server.
                for _ in 0..<500 {
                    let found = try? admin.query("SELECT count(*)::bigint FROM events WHERE seq = 3")
                    if (try? found?.int64(0, 0)) == 1 { break }
                    usleep(10_000)
                }
                connection.simulateConnectionLoss()
                writer.afterSendingForTesting = nil
            }
        }
        store.flush()  // the writer idle, so that the commit runs here
        let handed = HandedResults()
        let outcome = store.commitIfIdle(
            [numberer.unit("main", count: 2, commandID: "lost", reply: ["ok": true])], later: handed.handler)
        guard case .handedOff = outcome else {
            Issue.record("the lost outcome was not left to the committer thread: \(outcome)")
            return
        }
        // There it connects again, reads the batch back and finds it committed.
        let results = try #require(handed.wait())
        #expect(results.count == 1 && results[0].failure == nil, "\(results)")
        #expect(store.lastSeq == 3)
        #expect(try store.reply(forCommand: "lost") == ["ok": true])
        // The new session reads main's revision first, on the committer thread; then inline again.
        store.flush()
        var next = Numberer(seq: 3, revisions: ["main": 3])
        let reading = next.unit("main")
        guard case .notRun = store.commitIfIdle([reading], later: handed.handler) else {
            Issue.record("a revision to read after the reconnect was read on the caller's thread")
            return
        }
        try store.append(reading)
        store.flush()
        guard case .done(let inline) = store.commitIfIdle([next.unit("main")], later: handed.handler) else {
            Issue.record("inline again over the new session")
            return
        }
        #expect(inline.first?.failure == nil)
        #expect(checkGapless(try store.allEvents()) == nil)
    }

    /// A navigator whose revision the writer has not read yet (new, or after a reconnect or a failed
    /// commit) is read on the committer thread: behind a lock that read would wait 2 s.
    @Test func revisionsToReadAreLeftToTheCommitterThread() throws {
        let place = try LogPlace(.postgres)
        let store = try PostgresEventStore(conninfo: place.conninfo!)
        var numberer = Numberer()
        try store.append(numberer.unit("main"))
        store.limitInlineCommitWaits(to: .seconds(10))
        store.flush()
        let handed = HandedResults()
        let unit = numberer.unit("other")
        guard case .notRun = store.commitIfIdle([unit], later: handed.handler) else {
            Issue.record("a navigator without a cached revision was committed on the caller's thread")
            return
        }
        try store.append(unit)
        store.flush()
        guard case .done = store.commitIfIdle([numberer.unit("other")], later: handed.handler) else {
            Issue.record("inline once its revision is known")
            return
        }
    }
}

/// The results handed to a `commitIfIdle` caller's handler, waited for.
final class HandedResults: Sendable {
    private let results = Mutex<[Result<Void, StoreError>]?>(nil)
    private let delivered = DispatchSemaphore(value: 0)

    var handler: () -> BatchCompletion {
        {
            { [self] handed in
                results.withLock { $0 = handed }
                delivered.signal()
            }
        }
    }

    /// The results, once delivered (nil after `timeout`).
    func wait(timeout: Double = 10) -> [Result<Void, StoreError>]? {
        guard delivered.wait(timeout: .now() + timeout) == .success else { return nil }
        return results.withLock { $0 }
    }

    var isDelivered: Bool { results.withLock { $0 != nil } }
}

/// An inline commit the server is slow to answer (a lock, a stalled flush, a cut network) is not
/// waited for on the caller's thread past `limitInlineCommitWaits`: the committer thread takes the
/// wait over and hands the results to the caller's handler.
@Suite struct PostgresHandedOffCommitTests {
    @Test func aCommitTheServerHoldsIsHandedToTheCommitterThread() throws {
        let place = try LogPlace(.postgres)
        let store = try PostgresEventStore(conninfo: place.conninfo!)
        var numberer = Numberer()
        try store.append(numberer.unit("main"))
        store.limitInlineCommitWaits(to: .milliseconds(50))
        let admin = try PostgresSchemaTests.admin(place)
        try admin.execute("BEGIN; LOCK TABLE events IN EXCLUSIVE MODE")

        let handed = HandedResults()
        store.flush()
        let started = ContinuousClock.now
        let outcome = store.commitIfIdle([numberer.unit("main", count: 2, commandID: "held")], later: handed.handler)
        let returned = ContinuousClock.now - started
        guard case .handedOff = outcome else {
            Issue.record("the commit behind the lock was not handed off: \(outcome)")
            return
        }
        #expect(returned < .milliseconds(500), "the caller got its thread back after \(returned)")
        var next = Numberer(seq: 3, revisions: ["main": 3])
        let queued = store.commitIfIdle([next.unit("main")]) { { _ in } }
        guard case .notRun = queued else {
            Issue.record("a commit while one is handed off must queue behind it: \(queued)")
            return
        }

        usleep(300_000)
        #expect(!handed.isDelivered, "nothing delivered while the lock holds")
        try admin.execute("ROLLBACK")
        let results = try #require(handed.wait())
        #expect(results.count == 1 && results[0].failure == nil, "\(results)")
        #expect(store.lastSeq == 3)
        // A slow answer under load must not hand this one off too.
        store.limitInlineCommitWaits(to: .seconds(10))
        store.flush()
        var after = Numberer(seq: 3, revisions: ["main": 3])
        guard case .done(let inline) = store.commitIfIdle([after.unit("main")], later: { { _ in } }) else {
            Issue.record("inline again once the server answers")
            return
        }
        #expect(inline.first?.failure == nil)
        #expect(checkGapless(try store.allEvents()) == nil)
    }
}
