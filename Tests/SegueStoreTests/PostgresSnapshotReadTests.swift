import Foundation
import SegueCore
import Testing

@testable import SeguePostgres
@testable import SegueStore

/// Start-up's read of the newest snapshots on PostgreSQL: one step of the primary key per navigator,
/// however many checkpoints the log keeps. Counted in rows the server fetched
/// (`pg_stat_xact_user_tables`, within one transaction), not timed.
@Suite struct PostgresSnapshotReadTests {
    /// What start-up read before: every snapshot row, then kept the first of each name.
    static let distinctOn =
        "SELECT DISTINCT ON (navigator) navigator, seq, revision, state FROM snapshots ORDER BY navigator, seq DESC"

    /// Rows of `snapshots` the server read (by index and by scan) to answer `sql`.
    static func rowsRead(_ sql: String, conninfo: String) throws -> (rows: Int64, answer: Int) {
        let connection = try PostgresConnection(ConnectionSettings(conninfo: conninfo))
        _ = try connection.execute("BEGIN")
        let answer = try connection.query(sql).rowCount
        let counts = try connection.query(
            "SELECT COALESCE(idx_tup_fetch, 0) + COALESCE(seq_tup_read, 0) FROM pg_stat_xact_user_tables "
                + "WHERE relname = 'snapshots' AND schemaname = current_schema()")
        _ = try connection.execute("ROLLBACK")
        return (try counts.int64(0, 0) ?? -1, answer)
    }

    @Test func theNewestSnapshotsReadARowOrTwoPerNavigatorHoweverManyCheckpoints() throws {
        let place = try LogPlace(.postgres)
        let store = try place.open()
        let navigators = 20
        for round in 0..<300 {
            try store.saveSnapshots(
                (0..<navigators).map { index in
                    Snapshot(
                        navigator: "n\(index)", seq: Int64(round * navigators + index + 1),
                        revision: Int64(round + 1), state: ["round": .int(round)])
                })
        }
        let newest = try store.latestSnapshots()
        #expect(newest.map(\.navigator) == (0..<navigators).map { "n\($0)" }.sorted())
        #expect(newest.allSatisfy { $0.state == ["round": 299] })
        let now = try Self.rowsRead(PostgresLogReader.latestSnapshotsSQL, conninfo: place.conninfo!)
        let before = try Self.rowsRead(Self.distinctOn, conninfo: place.conninfo!)
        #expect(now.answer == navigators && before.answer == navigators)
        #expect(now.rows <= Int64(2 * navigators + 2), "read \(now.rows) rows for \(navigators) navigators")
        #expect(before.rows >= Int64(300 * navigators), "DISTINCT ON read \(before.rows) rows; now \(now.rows)")
    }
}
