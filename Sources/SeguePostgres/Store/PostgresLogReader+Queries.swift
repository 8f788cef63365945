import SegueCore
import SegueStore

extension PostgresLogReader {
    private static let columns = eventColumns

    static let lastRevision = PreparedStatement(
        "segue_last_revision", "SELECT COALESCE(MAX(revision), 0)::bigint FROM events WHERE navigator = $1", [.text])
    static let command = PreparedStatement(
        "segue_command", "SELECT reply, fingerprint FROM commands WHERE id = $1", [.bytea])
    static let eventsAfter = PreparedStatement(
        "segue_events_after", "SELECT \(columns) FROM events WHERE seq > $1 ORDER BY seq LIMIT $2", [.int8, .int8])
    static let navigatorEventsAfter = PreparedStatement(
        "segue_navigator_events_after",
        "SELECT \(columns) FROM events WHERE navigator = $1 AND seq > $2 ORDER BY seq LIMIT $3", [.text, .int8, .int8])
    static let navigatorEventsBetween = PreparedStatement(
        "segue_navigator_events_between",
        "SELECT \(columns) FROM events WHERE navigator = $1 AND seq > $2 AND seq <= $3 ORDER BY seq",
        [.text, .int8, .int8])
    static let snapshotAtOrBefore = PreparedStatement(
        "segue_snapshot_at_or_before",
        "SELECT navigator, seq, revision, state FROM snapshots WHERE navigator = $1 AND seq <= $2 "
            + "ORDER BY seq DESC LIMIT 1", [.text, .int8])

    func lastRevision(of navigator: String) throws(StoreError) -> Int64 {
        var parameters = PostgresParameters()
        parameters.append(navigator)
        return try withConnection { connection throws(PostgresError) in
            try connection.execute(Self.lastRevision, parameters).int64(0, 0) ?? 0
        }
    }

    func command(_ id: String) throws(StoreError) -> StoredCommand? {
        var parameters = PostgresParameters()
        parameters.append(bytes: id.utf8)
        return try withConnection { connection throws(PostgresError) -> StoredCommand? in
            let result = try connection.execute(Self.command, parameters)
            guard result.rowCount > 0 else { return nil }
            let reply = try result.string(0, 0).map { text throws(PostgresError) in
                guard let json = try? StoreJSON.decode(text) else {
                    throw PostgresError(
                        sqlState: SQLState.invalidBinaryRepresentation,
                        message: "The stored reply of command \"\(id)\" is not valid JSON.")
                }
                return json
            }
            return StoredCommand(reply: reply, fingerprint: try result.int64(0, 1).map { UInt64(bitPattern: $0) })
        }
    }

    /// Every row of `commands`, in id order (bytewise: `bytea`'s order, as SQLite's key).
    /// The rows of `commands` after `id` (from the first for nil), at most `limit`, in id order
    /// (bytewise: `bytea`'s order).
    func commandRecords(after id: String?, limit: Int) throws(StoreError) -> [CommandRecord] {
        var parameters = PostgresParameters()
        parameters.append(Int64(clamping: limit))
        if let id { parameters.append(bytes: id.utf8) }
        let columns = "SELECT id, navigator, seq, reply, fingerprint FROM commands"
        let sql = id == nil ? "\(columns) ORDER BY id LIMIT $1" : "\(columns) WHERE id > $2 ORDER BY id LIMIT $1"
        return try withConnection { connection throws(PostgresError) -> [CommandRecord] in
            let result = try connection.query(sql, parameters)
            return try (0..<result.rowCount).map { row throws(PostgresError) in
                // An id that is not UTF-8 would be stored elsewhere as another id (its bytes
                // replaced), and a retry of the original applied again: refused instead.
                let id = try result.withBytes(row, 0) { bytes throws(PostgresError) in
                    guard let id = String(validating: bytes, as: UTF8.self) else {
                        throw PostgresError(
                            sqlState: SQLState.invalidBinaryRepresentation,
                            message: "Command id 0x\(bytes.map { String(format: "%02x", $0) }.joined()) is not UTF-8.")
                    }
                    return id
                }
                let reply = try result.string(row, 3).map { text throws(PostgresError) in
                    guard let json = try? StoreJSON.decode(text) else {
                        throw PostgresError(
                            sqlState: SQLState.invalidBinaryRepresentation,
                            message: "The stored reply of command \"\(id)\" is not valid JSON.")
                    }
                    return json
                }
                return CommandRecord(
                    id: id, navigator: try result.string(row, 1), seq: try result.int64(row, 2), reply: reply,
                    fingerprint: try result.int64(row, 4).map { UInt64(bitPattern: $0) })
            }
        }
    }

    func events(after seq: Int64, navigator: String?, limit: Int) throws(StoreError) -> [EventRecord] {
        var parameters = PostgresParameters()
        if let navigator { parameters.append(navigator) }
        parameters.append(seq)
        parameters.append(Int64(clamping: limit))
        let statement = navigator == nil ? Self.eventsAfter : Self.navigatorEventsAfter
        return try withConnection { connection throws(PostgresError) in
            try Self.events(connection.execute(statement, parameters))
        }
    }

    /// The event with the highest seq, nil for an empty log.
    func lastEvent() throws(StoreError) -> EventRecord? {
        try withConnection { connection throws(PostgresError) in
            try Self.events(
                connection.query("SELECT \(Self.eventColumns) FROM events ORDER BY seq DESC LIMIT 1")
            ).first
        }
    }

    func events(of navigator: String, after seq: Int64, upTo last: Int64) throws(StoreError) -> [EventRecord] {
        var parameters = PostgresParameters()
        parameters.append(navigator)
        parameters.append(seq)
        parameters.append(last)
        return try withConnection { connection throws(PostgresError) in
            try Self.events(connection.execute(Self.navigatorEventsBetween, parameters))
        }
    }

    /// Every event after `seq`, a page per statement (keyset on `seq`): memory stays bounded and
    /// no transaction stays open for the length of the walk. Seqs only grow and a commit's events
    /// appear together, so the walk sees a gapless prefix of the log.
    /// With `last`, no row past it is read: seqs are gapless, so `(after, last]` holds at most
    /// `last - after` events.
    func forEachEvent(
        after seq: Int64, through last: Int64 = .max, _ body: (EventRecord) throws(StoreError) -> Void
    ) throws(StoreError) {
        var after = seq
        while after < last {
            let limit = Int(min(Int64(Self.pageSize), last - after))
            let page = try events(after: after, navigator: nil, limit: limit)
            for event in page where event.seq <= last { try body(event) }
            guard page.count == limit, let end = page.last else { return }
            after = end.seq
        }
    }

    /// Distinct navigators by skip-scan: one index probe per navigator, not a scan of the log.
    func navigators() throws(StoreError) -> [String] {
        try withConnection { connection throws(PostgresError) in
            let result = try connection.query(LogReader.navigatorsSQL)
            var names: [String] = []
            for row in 0..<result.rowCount {
                if let name = try result.string(row, 0) { names.append(name) }
            }
            return names
        }
    }

    /// The newest snapshot of each navigator, one backward step of the primary key per navigator: from
    /// the last row, the first row before each name is the newest of the name before it. PostgreSQL 15
    /// has no skip scan, so `DISTINCT ON (navigator) … ORDER BY navigator, seq DESC` read every
    /// snapshot of every checkpoint, and start-up grew with the log's history.
    static let latestSnapshotsSQL = """
        WITH RECURSIVE newest AS (
            (SELECT navigator, seq, revision, state FROM snapshots ORDER BY navigator DESC, seq DESC LIMIT 1)
            UNION ALL
            SELECT before.* FROM newest CROSS JOIN LATERAL (
                SELECT navigator, seq, revision, state FROM snapshots WHERE navigator < newest.navigator
                ORDER BY navigator DESC, seq DESC LIMIT 1) AS before
        )
        SELECT navigator, seq, revision, state FROM newest ORDER BY navigator
        """

    func latestSnapshots() throws(StoreError) -> [Snapshot] {
        try withConnection { connection throws(PostgresError) in
            let result = try connection.query(Self.latestSnapshotsSQL)
            return try (0..<result.rowCount).map { row throws(PostgresError) in try Self.snapshot(result, row) }
        }
    }

    func snapshot(of navigator: String, atOrBefore seq: Int64) throws(StoreError) -> Snapshot? {
        var parameters = PostgresParameters()
        parameters.append(navigator)
        parameters.append(seq)
        return try withConnection { connection throws(PostgresError) -> Snapshot? in
            let result = try connection.execute(Self.snapshotAtOrBefore, parameters)
            return result.rowCount == 0 ? nil : try Self.snapshot(result, 0)
        }
    }

    func schemaVersion() throws(StoreError) -> Int64 {
        try withConnection { connection throws(PostgresError) in
            let result = try connection.query(
                "SELECT CASE WHEN to_regclass('schema_version') IS NULL THEN 0::bigint "
                    + "ELSE (SELECT COALESCE(MAX(version), 0)::bigint FROM schema_version) END")
            return try result.int64(0, 0) ?? 0
        }
    }
}
