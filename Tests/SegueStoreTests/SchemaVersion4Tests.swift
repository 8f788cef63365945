import Foundation
import SegueCore
import Testing

@testable import SegueStore

/// Schema version 4 keeps `snapshots` in a rowid table with its key `(navigator, seq)` in an index:
/// as a `WITHOUT ROWID` table its interior pages held whole ~1 KiB states, so each seek of start-up's
/// newest-snapshot read went through a tree many levels deep. Older logs migrate in place and keep
/// every snapshot.
@Suite struct SchemaVersion4Tests {
    /// A state about the size of a real navigator's (a stack of two screens with their views).
    static func state(_ round: Int) -> JSON {
        ["round": .int(round), "pad": .string(String(repeating: "s", count: 1_000))]
    }

    /// A file at `version` with `checkpoints` checkpoints of `navigators` navigators each.
    static func makeLog(_ path: String, version: Int, navigators: Int, checkpoints: Int) throws {
        let database = try Database(path: path)
        _ = try database.scalarText("PRAGMA journal_mode = WAL")
        for migration in Schema.migrations.prefix(version) { try database.execute(migration) }
        try database.execute("PRAGMA user_version = \(version); BEGIN")
        let insert = try database.prepare(
            "INSERT INTO snapshots (navigator, seq, revision, state) VALUES (?, ?, ?, ?)")
        for round in 0..<checkpoints {
            for index in 0..<navigators {
                insert.reset()
                insert.bind("n\(index)", at: 1)
                insert.bind(Int64(round * navigators + index + 1), at: 2)
                insert.bind(Int64(round + 1), at: 3)
                insert.bind(StoreJSON.encode(state(round)), at: 4)
                try insert.run()
            }
        }
        try database.execute("COMMIT")
    }

    static func tableSQL(_ path: String) throws -> String {
        try Database(path: path).scalarText("SELECT sql FROM sqlite_master WHERE name = 'snapshots'") ?? ""
    }

    @Test func aVersionThreeLogMigratesAndKeepsEverySnapshot() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("events.db")
        try Self.makeLog(path, version: 3, navigators: 3, checkpoints: 4)
        #expect(try Self.tableSQL(path).contains("WITHOUT ROWID"))
        let store = try EventStore(path: path)
        #expect(store.migration?.from == 3 && store.migration?.to == Schema.currentVersion)
        #expect(try store.latestSnapshots().map(\.navigator) == ["n0", "n1", "n2"])
        #expect(try store.latestSnapshots().map(\.seq) == [10, 11, 12])
        #expect(try store.latestSnapshots().map(\.state) == Array(repeating: Self.state(3), count: 3))
        #expect(
            try store.snapshot(of: "n1", atOrBefore: 7)
                == Snapshot(navigator: "n1", seq: 5, revision: 2, state: Self.state(1)))
        store.close()
        let database = try Database(path: path)
        #expect(try database.scalarInt("PRAGMA user_version") == Schema.currentVersion)
        #expect(try database.scalarInt("SELECT COUNT(*) FROM snapshots") == 12)
        #expect(!(try Self.tableSQL(path).contains("WITHOUT ROWID")))
        #expect(
            try database.scalarText("SELECT sql FROM sqlite_master WHERE name = 'snapshots_navigator_seq'")
                == "CREATE UNIQUE INDEX snapshots_navigator_seq ON snapshots (navigator, seq)")
        #expect(try EventLog(path: path).integrityCheck().isEmpty)
    }

    /// A checkpoint written again at the same seq (a retried checkpoint) replaces its rows: the
    /// unique index takes `INSERT OR REPLACE` as the primary key did.
    @Test func aCheckpointSavedAgainReplacesItsRows() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("events.db")
        let store = try EventStore(path: path)
        #expect(store.migration == nil, "a new file is created, not migrated")
        try store.saveSnapshots([Snapshot(navigator: "a", seq: 5, revision: 1, state: ["v": 1])])
        try store.saveSnapshots([Snapshot(navigator: "a", seq: 5, revision: 1, state: ["v": 2])])
        #expect(try store.latestSnapshots() == [Snapshot(navigator: "a", seq: 5, revision: 1, state: ["v": 2])])
        store.close()
        #expect(try Database(path: path).scalarInt("SELECT COUNT(*) FROM snapshots") == 1)
    }

    /// Pages read (not cached) by start-up's newest-snapshot read on a fresh connection, in a log of
    /// many checkpoints: the I/O the migration saves, counted rather than timed. Version 3's table
    /// is measured beside it, so the test shows the difference it guards.
    @Test func theNewestSnapshotsTakeAFewPagesPerNavigatorHoweverManyCheckpoints() throws {
        let navigators = 20
        var pages: [Int: Int32] = [:]
        for version in [3, Int(Schema.currentVersion)] {
            let directory = TemporaryDirectory()
            let path = directory.file("events.db")
            try Self.makeLog(path, version: version, navigators: navigators, checkpoints: 300)
            let reader = try LogReader(path: path, busyTimeoutMilliseconds: 0)
            let before = reader.database.pagesRead
            #expect(try reader.latestSnapshots().count == navigators)
            pages[version] = reader.database.pagesRead - before
        }
        let old = try #require(pages[3])
        let new = try #require(pages[Int(Schema.currentVersion)])
        #expect(new <= Int32(3 * navigators), "version 4 read \(new) pages for \(navigators) navigators")
        #expect(old >= 2 * new, "version 3 read \(old) pages, version 4 \(new)")
    }
}
