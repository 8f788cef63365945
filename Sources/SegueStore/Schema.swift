/// The store's schema as an ordered list of migrations, tracked in `PRAGMA user_version`.
///
/// Migration `n` (1-based) takes a file from version `n - 1` to `n`; a file newer than the code is
/// refused rather than guessed at. Everything is plain tables with TEXT JSON columns so that an
/// operator with nothing but the `sqlite3` shell can read the log:
/// `sqlite3 events.db "SELECT seq, navigator, revision, type, data FROM events ORDER BY seq"`.
package enum Schema {
    static let migrations: [String] = [
        // 1: the log, its append-only guard, snapshots and idempotency replies.
        """
        CREATE TABLE events (
            seq INTEGER PRIMARY KEY,
            navigator TEXT NOT NULL,
            revision INTEGER NOT NULL,
            type TEXT NOT NULL,
            version INTEGER NOT NULL,
            frame INTEGER NOT NULL,
            time INTEGER NOT NULL,
            command TEXT,
            data TEXT NOT NULL
        );
        CREATE UNIQUE INDEX events_navigator_revision ON events (navigator, revision);
        CREATE INDEX events_command ON events (command) WHERE command IS NOT NULL;
        CREATE TRIGGER events_no_update BEFORE UPDATE ON events
        BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
        CREATE TRIGGER events_no_delete BEFORE DELETE ON events
        BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
        CREATE TABLE snapshots (
            navigator TEXT NOT NULL,
            seq INTEGER NOT NULL,
            revision INTEGER NOT NULL,
            state TEXT NOT NULL,
            PRIMARY KEY (navigator, seq)
        ) WITHOUT ROWID;
        CREATE TABLE commands (
            id TEXT PRIMARY KEY,
            navigator TEXT,
            seq INTEGER,
            reply TEXT
        ) WITHOUT ROWID;
        """,
        // 2: the fingerprint of each command's request, so a different request reusing an id is
        // refused (rows from version 1 keep NULL: their retries are answered without that check).
        """
        ALTER TABLE commands ADD COLUMN fingerprint INTEGER;
        """,
        // 3: no index on events.command. No query needs it, and every event written by a command
        // with an id would add an entry, most often on a page of its own (ids are the client's, so
        // their entries land all over the index): one more page per commit. The `commands` table's
        // key is the index by command id; its `seq` leads to the events (docs/operations.md).
        """
        DROP INDEX IF EXISTS events_command;
        """,
        // 4: `snapshots` as a rowid table with its key in an index. A WITHOUT ROWID table is an index
        // b-tree whose interior cells hold whole rows: with ~1 KiB states, three or four to a page, so a
        // log of 1,000 checkpoints had a tree about nine levels deep, and start-up's seek for each
        // navigator's newest snapshot read ~15 pages. The key index holds short rows (hundreds to a
        // page) and leads to one row of the table.
        """
        CREATE TABLE snapshots_by_rowid (
            navigator TEXT NOT NULL,
            seq INTEGER NOT NULL,
            revision INTEGER NOT NULL,
            state TEXT NOT NULL
        );
        INSERT INTO snapshots_by_rowid (navigator, seq, revision, state)
            SELECT navigator, seq, revision, state FROM snapshots ORDER BY seq, navigator;
        DROP TABLE snapshots;
        ALTER TABLE snapshots_by_rowid RENAME TO snapshots;
        CREATE UNIQUE INDEX snapshots_navigator_seq ON snapshots (navigator, seq);
        """,
    ]

    package static var currentVersion: Int64 { Int64(migrations.count) }

    /// Refuses a file that holds tables but no schema version: another program's database, to which
    /// segued adds no tables of its own (an empty file becomes a log).
    static func refuseForeign(_ database: Database) throws(StoreError) {
        guard try database.scalarInt("PRAGMA user_version") == 0,
            let tables = try database.scalarText(
                "SELECT group_concat(name, ', ') FROM (SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name)"
            )
        else { return }
        throw StoreError(
            kind: .invalidData,
            message: "\(database.path) is another program's SQLite database (tables: \(tables)), not a Segue log; "
                + "segued adds its tables to no other database. Give --data-dir a directory of its own.")
    }

    /// Brings the file at `database` to `currentVersion`, all pending migrations in one transaction;
    /// returns the version the file had (0 for a new file).
    @discardableResult
    package static func migrate(_ database: Database) throws(StoreError) -> Int64 {
        try database.execute("BEGIN IMMEDIATE")
        do throws(StoreError) {
            let version = try database.scalarInt("PRAGMA user_version")
            guard version <= currentVersion else {
                throw StoreError(
                    kind: .invalidData,
                    message: "The event store at \(database.path) has schema version \(version), newer than "
                        + "this build's \(currentVersion). Upgrade segued or open a different data directory.")
            }
            for index in Int(version)..<migrations.count {
                try database.execute(migrations[index])
            }
            if version < currentVersion {
                try database.execute("PRAGMA user_version = \(currentVersion)")
            }
            try database.execute("COMMIT")
            return version
        } catch {
            database.rollbackQuietly()
            throw error
        }
    }
}

/// A migration of an existing file to the build's schema, as `EventStore` reports it.
package struct SchemaMigration: Sendable, Equatable {
    package var from: Int64
    package var to: Int64
    package var took: Duration

    package init(from: Int64, to: Int64, took: Duration) {
        self.from = from
        self.to = to
        self.took = took
    }
}
