import SegueStore

/// The log's tables in PostgreSQL, as an ordered list of migrations recorded in `schema_version`.
///
/// The same tables as SQLite's (docs/design.md, "The store"), with PostgreSQL's types: `data`,
/// `reply` and `state` are `text` holding JSON exactly as segued wrote it (so an export is
/// byte-identical; an operator queries it through a cast, `data::json->>'to'`); command ids are
/// `bytea`, since a client's id may hold any character, NUL included, which `text` refuses, and
/// their order is then bytewise as in SQLite. Navigator names sort bytewise too (`COLLATE "C"`), whatever the database's collation.
/// One statement-level trigger refuses UPDATE, DELETE and TRUNCATE of events.
///
/// Migration `n` (1-based) takes a database from version `n - 1` to `n`; a database newer than the
/// code is refused rather than guessed at. All pending migrations run in one transaction, under a
/// lock on `schema_version`, so two daemons starting at once migrate once.
enum PostgresSchema {
    static let migrations: [String] = [
        // 1: the log, its append-only guard, snapshots and idempotency replies.
        """
        CREATE TABLE events (
            seq bigint PRIMARY KEY CHECK (seq > 0),
            navigator text COLLATE "C" NOT NULL,
            revision bigint NOT NULL CHECK (revision > 0),
            type text NOT NULL,
            version integer NOT NULL,
            frame bigint NOT NULL,
            time bigint NOT NULL,
            command bytea,
            data json NOT NULL,
            CONSTRAINT events_navigator_revision UNIQUE (navigator, revision)
        );
        CREATE FUNCTION segue_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION 'events are append-only' USING ERRCODE = 'restrict_violation',
                HINT = 'The log is only ever appended to; export it to change history elsewhere.';
        END $$;
        CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON events
            FOR EACH STATEMENT EXECUTE FUNCTION segue_events_append_only();
        CREATE TABLE snapshots (
            navigator text COLLATE "C" NOT NULL,
            seq bigint NOT NULL,
            revision bigint NOT NULL,
            state json NOT NULL,
            PRIMARY KEY (navigator, seq)
        );
        CREATE TABLE commands (
            id bytea PRIMARY KEY,
            navigator text,
            seq bigint,
            reply json,
            fingerprint bigint
        );
        """,
        // 2: shard leadership for several daemons on one log (PostgresLeadership). The epoch is bumped
        // by each new leader after it took the shard's advisory lock; every append of a daemon that
        // leads shards calls segue_fence first, in its transaction, so a leader that lost its lock
        // (killed session, partition) cannot append once another has taken over.
        """
        CREATE TABLE shards (
            shard integer PRIMARY KEY CHECK (shard >= 0),
            epoch bigint NOT NULL CHECK (epoch > 0),
            leader text NOT NULL,
            since timestamptz NOT NULL DEFAULT now()
        );
        CREATE FUNCTION segue_fence(held bigint[], epochs bigint[], base bigint) RETURNS void
        LANGUAGE plpgsql AS $$
        DECLARE
            stale bigint;
        BEGIN
            -- FOR SHARE waits for a takeover in progress (its UPDATE holds the row), and holds off
            -- a takeover until this transaction ends: an append is either before the new epoch,
            -- and then in the log the new leader folds, or refused.
            PERFORM 1 FROM shards WHERE shard = ANY(held) ORDER BY shard FOR SHARE;
            SELECT h.shard INTO stale FROM unnest(held, epochs) AS h(shard, epoch)
                WHERE NOT EXISTS (SELECT 1 FROM shards s WHERE s.shard = h.shard AND s.epoch = h.epoch)
                LIMIT 1;
            IF stale IS NOT NULL THEN
                RAISE EXCEPTION 'shard % has a newer leader: this daemon no longer leads it', stale
                    USING ERRCODE = 'SG001', HINT = 'The append is refused; the daemon steps down for the shard.';
            END IF;
            IF (SELECT COALESCE(MAX(seq), 0) FROM events) <> base THEN
                RAISE EXCEPTION 'the log no longer ends at seq %: another daemon appended', base
                    USING ERRCODE = 'SG002', HINT = 'The daemon reads the new events and the command is retried.';
            END IF;
        END $$;
        """,
        // 3: without the CHECKs that seq and revision be positive: the server builds both
        // expressions again for every insert statement, a measurable share of each commit
        // (docs/performance.md, "The server's share of a commit"), and the keys with `segue verify`'s
        // gapless-from-1 check hold the same. Instant: nothing is rewritten.
        """
        ALTER TABLE events DROP CONSTRAINT events_seq_check, DROP CONSTRAINT events_revision_check;
        """,
        // 4: the JSON columns as text. As `json` the server parsed every row segued had just written
        // with its own serializer (docs/performance.md, "The server's share of a commit"); what
        // segued reads back it parses itself, and `segue import` checks each line. Rewrites the
        // three tables once (`willMigrate` lets the daemon say so and keep systemd waiting).
        """
        ALTER TABLE events ALTER COLUMN data TYPE text;
        ALTER TABLE snapshots ALTER COLUMN state TYPE text;
        ALTER TABLE commands ALTER COLUMN reply TYPE text;
        """,
    ]

    static var currentVersion: Int64 { Int64(migrations.count) }

    /// Creates `schema_version` if missing, then brings the database to `currentVersion`; returns the
    /// version the database had (0 for a new one). `willMigrate` is told what the migrations of a
    /// database that had one will do before they run (a rewrite takes a while on a large log).
    @discardableResult
    static func migrate(
        _ connection: PostgresConnection, location: String, willMigrate: (PostgresSchemaUpgrade) -> Void = { _ in }
    ) throws(StoreError) -> Int64 {
        try createVersionTableIfMissing(connection, location: location)
        // Up to date: nothing to lock. The lock below needs UPDATE on schema_version, which a role
        // that does not own the tables is not granted (docs/operations.md).
        let seen = try currentVersion(of: connection, location: location)
        if seen == currentVersion { return seen }
        let action = "Cannot create or migrate the event store's schema at \(location)"
        try mapped(action) { () throws(PostgresError) in try connection.execute("BEGIN") }
        do throws(StoreError) {
            try mapped(action) { () throws(PostgresError) in
                try connection.execute("LOCK TABLE schema_version IN SHARE ROW EXCLUSIVE MODE")
            }
            let version = try currentVersion(of: connection, location: location)
            if version > 0 && version < currentVersion {
                willMigrate(try mapped(action) { () throws(PostgresError) in try .from(version, on: connection) })
            }
            try mapped(action) { () throws(PostgresError) in
                for index in Int(version)..<migrations.count {
                    try connection.execute(migrations[index])
                    var parameters = PostgresParameters()
                    parameters.append(Int64(index + 1))
                    try connection.query("INSERT INTO schema_version (version) VALUES ($1)", parameters)
                }
                try connection.execute("COMMIT")
            }
            return version
        } catch {
            if !connection.isBroken { _ = try? connection.execute("ROLLBACK") }
            throw error
        }
    }

    /// The first key of the lock creators of `schema_version` take ('SEGS'); the second is the
    /// schema's OID.
    static let creationLockClass: Int32 = 0x5345_4753

    /// Refuses a database whose `events` table segued did not make (it has no `schema_version`).
    static func foreignEventsTable(at location: String) -> StoreError {
        StoreError(
            kind: .invalidData,
            message: "The database at \(location) has an events table but no schema_version table: it is "
                + "not a Segue event store. Give segued a database of its own.")
    }

    /// `schema_version` is created alone first: a role without CREATE can then still open a
    /// database that is migrated already (creating needs the privilege even with IF NOT EXISTS).
    static func createVersionTableIfMissing(_ connection: PostgresConnection, location: String)
        throws(StoreError)
    {
        let action = "Cannot create the schema_version table at \(location)"
        let (versioned, hasEvents) = try mapped(action) { () throws(PostgresError) in
            let found = try connection.query(
                "SELECT to_regclass('schema_version') IS NOT NULL, to_regclass('events') IS NOT NULL")
            return (try found.bool(0, 0) == true, try found.bool(0, 1) == true)
        }
        guard !versioned else { return }
        guard !hasEvents else { throw foreignEventsTable(at: location) }
        // IF NOT EXISTS does not keep two sessions creating at once apart (the second fails on the
        // catalog's unique index), so creators take turns under a lock on the schema's name.
        try mapped(action) { () throws(PostgresError) in try connection.execute("BEGIN") }
        do throws(StoreError) {
            try mapped(action) { () throws(PostgresError) in
                var parameters = PostgresParameters()
                parameters.append(creationLockClass)
                try connection.query(
                    "SELECT pg_advisory_xact_lock($1, "
                        + "COALESCE((SELECT oid FROM pg_namespace WHERE nspname = current_schema())::int, 0))",
                    parameters)
                try connection.execute(
                    """
                    CREATE TABLE IF NOT EXISTS schema_version (
                        version integer PRIMARY KEY,
                        applied_at timestamptz NOT NULL DEFAULT now()
                    )
                    """)
                try connection.execute("COMMIT")
            }
        } catch {
            if !connection.isBroken { _ = try? connection.execute("ROLLBACK") }
            throw error
        }
    }

    /// The database's schema version (0 for none yet); a version newer than this build is refused.
    static func currentVersion(of connection: PostgresConnection, location: String) throws(StoreError) -> Int64 {
        let version = try mapped("Cannot read the schema version at \(location)") { () throws(PostgresError) in
            try connection.query("SELECT COALESCE(MAX(version), 0)::bigint FROM schema_version").int64(0, 0) ?? 0
        }
        guard version <= currentVersion else {
            throw StoreError(
                kind: .invalidData,
                message: "The event store at \(location) has schema version \(version), newer than this build's "
                    + "\(currentVersion). Upgrade segued or point it at a different database.")
        }
        return version
    }
}
