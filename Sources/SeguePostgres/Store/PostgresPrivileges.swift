import SegueStore

/// What segued's role must be allowed on the log's tables (docs/operations.md, "Setting up
/// PostgreSQL"), looked at before anything is served: a role without `UPDATE` on `snapshots`
/// started, said Ready, and then could not lease frames, so every transition froze.
///
/// `DELETE` on `snapshots` is not among them: without it checkpoints keep older snapshots, which
/// segued says at start and thins once it is granted (`mayThinSnapshots`).
enum PostgresPrivileges {
    static let needed: [(privilege: String, table: String)] = [
        ("SELECT", "events"), ("INSERT", "events"), ("SELECT", "snapshots"), ("INSERT", "snapshots"),
        ("UPDATE", "snapshots"), ("SELECT", "commands"), ("INSERT", "commands"), ("SELECT", "schema_version"),
        ("INSERT", "schema_version"),
    ]

    /// The grants the connected role lacks ("UPDATE on snapshots"); on a database with no Segue
    /// schema yet, the right to create the tables in the schema they would go to.
    static func missing(_ connection: PostgresConnection, schemaExists: Bool) throws(PostgresError) -> [String] {
        guard schemaExists else {
            let result = try connection.query(
                "SELECT current_schema(), has_schema_privilege(current_schema(), 'CREATE')")
            guard let schema = try result.string(0, 0) else {
                return ["a schema on the search_path to create the tables in (none of it exists)"]
            }
            return try result.bool(0, 1) == true ? [] : ["CREATE on schema \(schema)"]
        }
        let rows = needed.map { "('\($0.privilege)', '\($0.table)')" }.joined(separator: ", ")
        // CASE: has_table_privilege fails on a table that is missing, and a WHERE's order is the planner's.
        let result = try connection.query(
            """
            SELECT p.privilege || ' on ' || p.name FROM (VALUES \(rows)) AS p(privilege, name)
            WHERE CASE WHEN to_regclass(p.name) IS NULL THEN false ELSE NOT has_table_privilege(p.name, p.privilege) END
            """)
        var missing: [String] = []
        for row in 0..<result.rowCount { if let grant = try result.string(row, 0) { missing.append(grant) } }
        return missing
    }

    /// Throws, naming each missing grant and the statement that gives it, when the role lacks one.
    static func refuseMissing(_ connection: PostgresConnection, schemaExists: Bool, location: String)
        throws(StoreError)
    {
        let (lacking, role) = try mapped("Cannot read the role's privileges at \(location)") {
            () throws(PostgresError) -> ([String], String) in
            (
                try Self.missing(connection, schemaExists: schemaExists),
                try connection.query("SELECT current_user::text").string(0, 0) ?? "the role"
            )
        }
        guard !lacking.isEmpty else { return }
        let grants = lacking.compactMap { grant -> String? in
            if grant.hasPrefix("CREATE on schema ") {
                return "GRANT CREATE ON SCHEMA \(grant.dropFirst("CREATE on schema ".count)) TO \(role);"
            }
            return grant.hasPrefix("a schema")
                ? nil : "GRANT \(grant.replacingOccurrences(of: " on ", with: " ON ")) TO \(role);"
        }
        throw StoreError(
            kind: .postgres, sqlState: SQLState.insufficientPrivilege,
            message: "The role \(role) at \(location) lacks \(lacking.joined(separator: ", ")), which segued needs "
                + "(docs/operations.md, \"Setting up PostgreSQL\")"
                + (grants.isEmpty ? "." : ": \(grants.joined(separator: " ")) (or have that role own the database)."))
    }
}
