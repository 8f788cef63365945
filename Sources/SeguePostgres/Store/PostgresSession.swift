import SegueStore

/// A connection set up for one role in the store: the writer's (durability, lock timeout, the
/// log's writer lock, the schema) or a reader's (read-only).
///
/// Both refuse a server that takes no writes before anything else: a standby given by mistake
/// (`pg_is_in_recovery()`) or a database whose sessions are read-only would otherwise report ready
/// and fail every command.
final class PostgresSession {
    let connection: PostgresConnection
    let location: String
    /// `pg_backend_pid()` and the backend's start (µs since 1970): together they name this session's
    /// server process even after the server restarted and reused the pid.
    let backendPID: Int32
    let backendStart: Int64

    enum Role {
        case writer(Durability, lockTimeoutMilliseconds: Int64)
        case reader
    }

    /// With `answerTimeout` (a reader's only), every statement after the set-up gives up after that
    /// much silence from the server, and one waiting for a lock a little sooner (`lock_timeout`),
    /// so that the server's own error ends it and the session stays usable.
    init(_ settings: ConnectionSettings, role: Role, answerTimeout: Duration? = nil) throws(StoreError) {
        let location = settings.redacted
        let connection = try mapped("Cannot open the event store") {
            () throws(PostgresError) in try PostgresConnection(settings)
        }
        let row = try mapped("Cannot query the server at \(location)") { () throws(PostgresError) in
            let result = try connection.query(
                "SELECT pg_is_in_recovery(), current_setting('transaction_read_only') = 'on', "
                    + "(extract(epoch FROM backend_start) * 1000000)::bigint, "
                    + "(SELECT source FROM pg_settings WHERE name = 'default_transaction_read_only') "
                    + "FROM pg_stat_activity WHERE pid = pg_backend_pid()")
            return (
                recovery: try result.bool(0, 0) == true, readOnly: try result.bool(0, 1) == true,
                start: try result.int64(0, 2) ?? 0, readOnlySource: try result.string(0, 3) ?? nil
            )
        }
        self.location = location
        self.connection = connection
        backendPID = connection.backendPID
        backendStart = row.start
        switch role {
        case .writer(let durability, let lockTimeout):
            try Self.refuseReadOnly(
                recovery: row.recovery, readOnly: row.readOnly, source: row.readOnlySource, location: location)
            try mapped("Cannot set up the session at \(location)") { () throws(PostgresError) in
                try connection.execute(
                    "SET synchronous_commit = \(durability == .full ? "on" : "off"); "
                        + "SET lock_timeout = \(lockTimeout); SET idle_in_transaction_session_timeout = 0")
            }
        case .reader:
            let lockTimeout = answerTimeout.map { "; " + Self.lockTimeout(for: $0) } ?? ""
            try mapped("Cannot set up the session at \(location)") { () throws(PostgresError) in
                try connection.execute("SET default_transaction_read_only = on" + lockTimeout)
            }
            connection.answerTimeout = answerTimeout
        }
    }

    /// A bounded reader's `lock_timeout`: a little under its answer timeout, so that the server's
    /// own error ends a wait for a lock and the session stays usable.
    static func lockTimeout(for answerTimeout: Duration) -> String {
        "SET lock_timeout = \(ConnectionSettings.milliseconds(answerTimeout) * 4 / 5)"
    }

    private static func refuseReadOnly(recovery: Bool, readOnly: Bool, source: String?, location: String)
        throws(StoreError)
    {
        if recovery {
            throw StoreError(
                kind: .postgres, sqlState: SQLState.readOnlyTransaction,
                message: "The PostgreSQL server at \(location) is a standby in recovery (pg_is_in_recovery() is "
                    + "true) and takes no writes. Point the conninfo at the primary, or add "
                    + "target_session_attrs=read-write to let libpq pick it among several hosts.")
        }
        if readOnly {
            throw StoreError(
                kind: .postgres, sqlState: SQLState.readOnlyTransaction,
                message: "Sessions on the database at \(location) are read-only (transaction_read_only is on), so "
                    + "nothing could be stored. " + readOnlyFix(source))
        }
    }

    /// Where to turn `default_transaction_read_only` off, from where the server says it was set
    /// (`pg_settings.source`): a setting of the role wins over the database's, which wins over the
    /// server's.
    static func readOnlyFix(_ source: String?) -> String {
        switch source {
        case "user": "It is set for the role: ALTER ROLE … SET default_transaction_read_only = off."
        case "database user":
            "It is set for the role in this database: ALTER ROLE … IN DATABASE … SET default_transaction_read_only = off."
        case "database": "It is set for the database: ALTER DATABASE … SET default_transaction_read_only = off."
        case "configuration file", "command line":
            "It is set in the server's configuration: default_transaction_read_only = off there, then reload."
        default:
            "Turn default_transaction_read_only off where it is set (ALTER ROLE … SET, ALTER DATABASE … SET, or "
                + "the server's configuration; the role's setting wins)."
        }
    }

    var isBroken: Bool { connection.isBroken }

    /// The log's end: the highest stored seq, 0 for an empty log.
    func lastSeq() throws(StoreError) -> Int64 {
        try mapped("Cannot read the end of the log at \(location)") { () throws(PostgresError) in
            try connection.lastSeq()
        }
    }
}

extension PostgresConnection {
    /// The highest stored seq, 0 for an empty log.
    func lastSeq() throws(PostgresError) -> Int64 {
        try query("SELECT COALESCE(MAX(seq), 0)::bigint FROM events").int64(0, 0) ?? 0
    }
}

@available(*, unavailable)
extension PostgresSession: Sendable {}
