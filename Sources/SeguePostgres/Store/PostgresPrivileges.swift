import SegueStore

/// What segued's role must be allowed on the log's tables (docs/operations.md, "Setting up
/// PostgreSQL"), looked at before anything is served: a role without `UPDATE` on `snapshots`
/// started, said Ready, and then could not lease frames, so every transition froze.
///
/// `DELETE` on `snapshots` is not among them: without it checkpoints keep older snapshots, which
/// segued says at start and thins once it is granted (`mayThinSnapshots`).
package enum PostgresPrivileges {
    static let needed: [(privilege: String, table: String)] = [
        ("SELECT", "events"), ("INSERT", "events"), ("SELECT", "snapshots"), ("INSERT", "snapshots"),
        ("UPDATE", "snapshots"), ("SELECT", "commands"), ("INSERT", "commands"), ("SELECT", "schema_version"),
        ("INSERT", "schema_version"),
    ]

    /// What segued says of a role that may not DELETE from `snapshots`, at start and in `--check-config`.
    package static let snapshotsKeptWithoutDelete =
        "The role may not DELETE from snapshots: checkpoints keep every older snapshot, which then take about as "
        + "much room as the events. GRANT DELETE ON snapshots TO the role (docs/operations.md, \"Disk use\")."

    /// Whether the connected role may DELETE from `snapshots` (`snapshotsKeptWithoutDelete`).
    static func mayDeleteSnapshots(_ connection: PostgresConnection) throws(PostgresError) -> Bool {
        try connection.query("SELECT has_table_privilege('snapshots', 'DELETE')").bool(0, 0) == true
    }

    /// Something the role may not do that segued needs: what it is ("UPDATE on snapshots"), and the
    /// statement that allows it (nil where no GRANT does: no schema of the search_path exists).
    struct Lacking: Equatable {
        var what: String
        var grant: String?
    }

    /// What the connected role (`role`) lacks; on a database with no Segue schema yet, the right to
    /// create the tables in the schema they would go to.
    static func missing(_ connection: PostgresConnection, schemaExists: Bool, role: String) throws(PostgresError)
        -> [Lacking]
    {
        guard schemaExists else {
            let result = try connection.query(
                "SELECT current_schema(), has_schema_privilege(current_schema(), 'CREATE')")
            guard let schema = try result.string(0, 0) else {
                return [Lacking(what: "a schema on the search_path to create the tables in (none of it exists)")]
            }
            if try result.bool(0, 1) == true { return [] }
            return [Lacking(what: "CREATE on schema \(schema)", grant: "GRANT CREATE ON SCHEMA \(schema) TO \(role);")]
        }
        let rows = needed.map { "('\($0.privilege)', '\($0.table)')" }.joined(separator: ", ")
        // CASE: has_table_privilege fails on a table that is missing, and a WHERE's order is the planner's.
        let result = try connection.query(
            """
            SELECT p.privilege, p.name FROM (VALUES \(rows)) AS p(privilege, name)
            WHERE CASE WHEN to_regclass(p.name) IS NULL THEN false ELSE NOT has_table_privilege(p.name, p.privilege) END
            """)
        var missing: [Lacking] = []
        for row in 0..<result.rowCount {
            guard let privilege = try result.string(row, 0), let table = try result.string(row, 1) else { continue }
            missing.append(
                Lacking(what: "\(privilege) on \(table)", grant: "GRANT \(privilege) ON \(table) TO \(role);"))
        }
        return missing
    }

    /// Throws, naming each missing grant and the statement that gives it, when the role lacks one.
    static func refuseMissing(_ connection: PostgresConnection, schemaExists: Bool, location: String)
        throws(StoreError)
    {
        let (lacking, role) = try mapped("Cannot read the role's privileges at \(location)") {
            () throws(PostgresError) -> ([Lacking], String) in
            let role = try connection.query("SELECT current_user::text").string(0, 0) ?? "the role"
            return (try Self.missing(connection, schemaExists: schemaExists, role: role), role)
        }
        guard !lacking.isEmpty else { return }
        let grants = lacking.compactMap(\.grant)
        throw StoreError(
            kind: .postgres, sqlState: SQLState.insufficientPrivilege,
            message: "The role \(role) at \(location) lacks \(lacking.map(\.what).joined(separator: ", ")), which "
                + "segued needs (docs/operations.md, \"Setting up PostgreSQL\")"
                + (grants.isEmpty ? "." : ": \(grants.joined(separator: " ")) (or have that role own the database)."))
    }
}
