import SegueStore

/// What `segued --check-config` learns about a PostgreSQL store without opening it for writing (a
/// running daemon holds the log's writer lock): that the server is reachable with these settings,
/// takes writes (not a standby, not read-only), and holds a schema this build can use.
package struct PostgresStoreCheck: Sendable {
    /// The database's schema version: 0 when segued has not created the schema yet.
    package var schemaVersion: Int64
    /// This build's schema version; an older database is migrated at the next start.
    package var currentVersion: Int64
    /// The tables' size when that migration rewrites them: segued serves nothing until it ends.
    package var rewrite: PostgresSchemaUpgrade.TableSizes?
    /// What the start would warn of: the role may not DELETE from `snapshots`.
    package var warnings: [String] = []

    /// Connects as the writer would and reads `schema_version`; throws what a start would fail on,
    /// `shards` (`cluster.shards`) other than the count the daemons serving the log took included.
    package init(settings: ConnectionSettings, shards: Int? = nil) throws(StoreError) {
        let session = try PostgresSession(settings, role: .writer(.full, lockTimeoutMilliseconds: 2000))
        let connection = session.connection
        let foreign: Bool
        (schemaVersion, rewrite, foreign) = try mapped("Cannot read the schema version at \(session.location)") {
            () throws(PostgresError) in
            // Two statements: a query naming a missing table fails when it is planned, whatever a
            // CASE around it says.
            let exists = try connection.query(
                "SELECT to_regclass('schema_version') IS NOT NULL, to_regclass('events') IS NOT NULL")
            guard try exists.bool(0, 0) == true else { return (0, nil, try exists.bool(0, 1) == true) }
            let version =
                try connection.query("SELECT COALESCE(MAX(version), 0)::bigint FROM schema_version").int64(0, 0) ?? 0
            guard version <= PostgresSchema.currentVersion else { return (version, nil, false) }
            return (version, try PostgresSchemaUpgrade.from(version, on: connection).rewrite, false)
        }
        currentVersion = PostgresSchema.currentVersion
        if foreign { throw PostgresSchema.foreignEventsTable(at: session.location) }
        // What the start would refuse, or (no CREATE) fail on while it makes the tables.
        try PostgresPrivileges.refuseMissing(connection, schemaExists: schemaVersion > 0, location: session.location)
        guard schemaVersion <= currentVersion else {
            throw StoreError(
                kind: .invalidData,
                message: "The event store at \(session.location) has schema version \(schemaVersion), newer than "
                    + "this build's \(currentVersion). Upgrade segued or point it at a different database.")
        }
        if let shards, schemaVersion > 0 {
            try PostgresLogWriter.refuseOtherShardCount(shards, connection, location: session.location)
        }
        if schemaVersion > 0 {
            let mayDelete = try mapped("Cannot read the role's grants at \(session.location)") {
                () throws(PostgresError) in try PostgresPrivileges.mayDeleteSnapshots(connection)
            }
            if !mayDelete { warnings.append(PostgresPrivileges.snapshotsKeptWithoutDelete) }
        }
    }

    /// One sentence for `--check-config`.
    package var summary: String {
        switch schemaVersion {
        case 0: "no Segue schema yet; segued creates version \(currentVersion) at its first start"
        case currentVersion: "schema version \(schemaVersion), current"
        default:
            "schema version \(schemaVersion); segued migrates it to \(currentVersion) at its next start"
                + (rewrite.map {
                    ", rewriting the log's tables (\($0.description)) while it serves nothing: plan it "
                        + "(docs/operations.md, \"The tables and their versions\")"
                } ?? "")
        }
    }
}
