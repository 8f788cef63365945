import SegueCore
import SegueStore

/// A PostgreSQL log opened for reading only, as `segue export`, `verify` and `replay` read it: a
/// read-only session, no schema created or migrated and no writer lock, so it is safe beside the
/// segued that writes the log (SQLite's `EventLog`).
package final class PostgresEventLog: EventSequence, CommandSequence {
    package let settings: ConnectionSettings
    private let reader: PostgresLogReader

    /// Connects and checks that the database holds a Segue log of a version this build reads.
    package init(conninfo: String) throws(StoreError) {
        settings = try mapped("Cannot use the PostgreSQL connection string") { () throws(PostgresError) in
            try ConnectionSettings(conninfo: conninfo, applicationName: "segue")
        }
        reader = PostgresLogReader(settings: settings)
        let exists = try reader.withConnection { connection throws(PostgresError) in
            try connection.query("SELECT to_regclass('schema_version') IS NOT NULL").bool(0, 0) == true
        }
        let version = exists ? try reader.schemaVersion() : 0
        guard version > 0 else {
            throw StoreError(
                kind: .io,
                message: "The database at \(settings.redacted) holds no Segue log (no schema_version table); "
                    + "give the database segued writes to.")
        }
        guard version <= PostgresSchema.currentVersion else {
            throw StoreError(
                kind: .invalidData,
                message: "The log at \(settings.redacted) has schema version \(version), newer than this build's "
                    + "\(PostgresSchema.currentVersion). \(EventLog.upgradeAdvice)")
        }
    }

    deinit { reader.close() }

    /// Where the log is, without secrets.
    package var location: String { settings.redacted }

    package func forEachEvent(after seq: Int64 = 0, _ body: (EventRecord) throws(StoreError) -> Void)
        throws(StoreError)
    {
        try forEachEvent(after: seq, through: .max, body)
    }

    /// Every event with seq in `(seq, last]`, in seq order, a page at a time, up to the log's end
    /// when the walk begins (as a SQLite `EventLog` reads it): what is appended meanwhile is not read.
    package func forEachEvent(
        after seq: Int64, through last: Int64, _ body: (EventRecord) throws(StoreError) -> Void
    ) throws(StoreError) {
        let end = try reader.withConnection { connection throws(PostgresError) in try connection.lastSeq() }
        try reader.forEachEvent(after: seq, through: min(last, end), body)
    }

    package func commandRecords(after id: String?, limit: Int) throws(StoreError) -> [CommandRecord] {
        try reader.commandRecords(after: id, limit: limit)
    }

    /// The session that writes the log (a segued, an import) as words that follow "open for writing
    /// by", or nil when none does.
    package func writer() -> String? {
        guard let holder = try? reader.withConnection({ PostgresLogWriter.lockHolder($0) }) else {
            return nil
        }
        return (holder.shared ? "daemons configured with `cluster`" : "a session") + holder.text
    }

    /// The log's first event (the creation of its first navigator), nil for an empty log.
    package func firstEvent() throws(StoreError) -> EventRecord? {
        try reader.events(after: 0, navigator: nil, limit: 1).first
    }

    /// The log's last event, nil for an empty log.
    package func lastEvent() throws(StoreError) -> EventRecord? { try reader.lastEvent() }

    /// The server's check of the log's invariants, findings as sentences; empty when sound.
    package func integrityCheck() throws(StoreError) -> [String] { try reader.integrityCheck() }
}
