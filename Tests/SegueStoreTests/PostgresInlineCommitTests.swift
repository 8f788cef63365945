import Foundation
import PostgresTestSupport
import SegueCore
import Synchronization
import Testing

@testable import SeguePostgres
@testable import SegueStore

/// A commit on the caller's thread (`commitIfIdle`, the frame loop's) never connects there: a lost
/// outcome is left for the committer thread to read back, and until it has, commits go there.
@Suite struct PostgresInlineCommitTests {
    @Test func anInlineCommitWhoseOutcomeIsLostIsReadBackByTheCommitterThread() throws {
        let place = try LogPlace(.postgres)
        let store = try PostgresEventStore(conninfo: place.conninfo!)
        var numberer = Numberer()
        try store.append(numberer.unit("main"))
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
        let results = try #require(
            store.commitIfIdle([numberer.unit("main", count: 2, commandID: "lost", reply: ["ok": true])]))
        let failure = try #require(results.first?.failure)
        #expect(failure.code == .unavailable)
        #expect(failure.message.contains("the daemon's frame loop does not wait for a new connection"), "\(failure)")

        // Numbered as the engine numbers after the failure: from seq 1 again.
        var renumbered = Numberer(seq: 1, revisions: ["main": 1])
        let unit = renumbered.unit("main")
        store.flush()
        #expect(store.commitIfIdle([unit]) == nil, "left to the committer thread")
        // There it connects, finds the lost batch committed, and the unit numbered behind it fails.
        #expect(throws: StoreError.self) { try store.append(unit) }
        #expect(store.lastSeq == 3)
        #expect(try store.reply(forCommand: "lost") == ["ok": true])
        var next = Numberer(seq: 3, revisions: ["main": 3])
        store.flush()
        #expect(store.commitIfIdle([next.unit("main")])?.first?.failure == nil, "inline again over the new session")
        #expect(checkGapless(try store.allEvents()) == nil)
    }
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

        let delivered = DispatchSemaphore(value: 0)
        let results = Mutex<[Result<Void, StoreError>]>([])
        store.flush()
        let started = ContinuousClock.now
        let outcome = store.commitIfIdle([numberer.unit("main", count: 2, commandID: "held")]) {
            { handed in
                results.withLock { $0 = handed }
                delivered.signal()
            }
        }
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
        #expect(delivered.wait(timeout: .now()) == .timedOut, "nothing delivered while the lock holds")
        try admin.execute("ROLLBACK")
        #expect(delivered.wait(timeout: .now() + 5) == .success)
        #expect(results.withLock { $0.count == 1 && $0[0].failure == nil })
        #expect(store.lastSeq == 3)
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
