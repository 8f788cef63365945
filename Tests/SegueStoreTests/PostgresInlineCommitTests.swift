import Foundation
import PostgresTestSupport
import SegueCore
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
