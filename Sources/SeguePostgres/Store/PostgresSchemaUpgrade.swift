/// What an upgrade of the log's schema will do, told before it runs: whether it rewrites the tables
/// (which holds them locked, so segued serves nothing until it ends) and how much there is to rewrite.
package struct PostgresSchemaUpgrade: Sendable, Equatable {
    /// The database's schema version, and the one this build migrates it to.
    package var from: Int64
    package var to: Int64
    /// The tables' size when a migration on the way rewrites them; nil when every step is instant.
    package var rewrite: TableSizes?

    /// The log's three tables (`events`, `snapshots`, `commands`) with their indexes and TOAST.
    package struct TableSizes: Sendable, Equatable {
        package var bytes: Int64
        /// The planner's estimate of the events (`pg_class.reltuples`); nil before the table was
        /// ever analyzed.
        package var events: Int64?

        /// "421 MB, about 1,000,000 events".
        package var description: String {
            let size =
                bytes >= 1_000_000
                ? "\(Int64((Double(bytes) / 1e6).rounded())) MB"
                : "\(max(1, Int64((Double(bytes) / 1e3).rounded()))) kB"
            guard let events else { return size }
            return size + ", about \(Self.grouped(events)) events"
        }

        /// An integer with thousands separators, as the docs write them.
        static func grouped(_ value: Int64) -> String {
            var digits = String(value)
            var index = digits.endIndex
            while digits.distance(from: digits.startIndex, to: index) > 3 {
                index = digits.index(index, offsetBy: -3)
                digits.insert(",", at: index)
            }
            return digits
        }
    }

    /// The versions whose migration rewrites the tables (4: the JSON columns as text).
    static let rewritingVersions: Set<Int64> = [4]

    /// Whether migrating from `version` (0: a new database, which has nothing to rewrite) runs a
    /// rewriting step.
    static func rewrites(from version: Int64) -> Bool {
        version > 0 && rewritingVersions.contains { $0 > version && $0 <= PostgresSchema.currentVersion }
    }

    /// Reads the tables' size from the catalog: instant, whatever the log's length.
    static func tableSizes(_ connection: PostgresConnection) throws(PostgresError) -> TableSizes {
        let result = try connection.query(
            """
            SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::bigint,
                MAX(CASE WHEN c.relname = 'events' AND c.reltuples >= 0 THEN c.reltuples END)::bigint
            FROM pg_class c
            WHERE c.oid IN (to_regclass('events'), to_regclass('snapshots'), to_regclass('commands'))
            """)
        return TableSizes(bytes: try result.int64(0, 0) ?? 0, events: try result.int64(0, 1))
    }

    /// The upgrade from `version`, measured on `connection` when it rewrites.
    static func from(_ version: Int64, on connection: PostgresConnection) throws(PostgresError) -> PostgresSchemaUpgrade
    {
        PostgresSchemaUpgrade(
            from: version, to: PostgresSchema.currentVersion,
            rewrite: rewrites(from: version) ? try tableSizes(connection) : nil)
    }
}
