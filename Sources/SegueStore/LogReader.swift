import SegueCore

/// The read side of the log: its own connection, so reads never wait behind (or fail with) writes.
///
/// In WAL mode a reader sees the last committed transaction and is never blocked by the writer
/// ("readers do not block writers and a writer does not block readers", sqlite.org/wal.html).
/// `PRAGMA query_only` makes an accidental write through this connection an error.
package final class LogReader {
    let database: Database
    private var statements: [String: Statement] = [:]

    static let eventColumns = "seq, navigator, revision, type, version, frame, time, command, data"

    init(path: String, busyTimeoutMilliseconds: Int32) throws(StoreError) {
        database = try Database(path: path, create: false)
        database.setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
        try database.execute("PRAGMA query_only = 1")
        database.keepWALFile()
    }

    /// A cached prepared statement for `sql`, reset and ready to bind.
    private func statement(_ sql: String) throws(StoreError) -> Statement {
        if let cached = statements[sql] { return cached }
        let statement = try database.prepare(sql)
        statements[sql] = statement
        return statement
    }

    func schemaVersion() throws(StoreError) -> Int64 { try database.scalarInt("PRAGMA user_version") }

    func lastRevision(of navigator: String) throws(StoreError) -> Int64 {
        let statement = try statement("SELECT MAX(revision) FROM events WHERE navigator = ?")
        defer { statement.reset() }
        statement.bind(navigator, at: 1)
        _ = try statement.step()
        return statement.int64(at: 0)
    }

    func command(_ id: String) throws(StoreError) -> StoredCommand? {
        let statement = try statement("SELECT reply, fingerprint FROM commands WHERE id = ?")
        defer { statement.reset() }
        statement.bind(id, at: 1)
        guard try statement.step() else { return nil }
        return try StoredCommand(statement)
    }

    /// Calls `body` with the UTF-8 bytes of up to `limit` command ids above `after` (bytewise, the
    /// primary key's order), and returns the last id passed, nil when there were none: one page of a
    /// keyset walk over the `commands` key, each page its own short read transaction.
    func forEachCommandID(after: [UInt8]?, limit: Int, _ body: (UnsafeRawBufferPointer) -> Void) throws(StoreError)
        -> [UInt8]?
    {
        let statement = try statement(
            after == nil
                ? "SELECT id FROM commands ORDER BY id LIMIT ?2"
                : "SELECT id FROM commands WHERE id > ?1 ORDER BY id LIMIT ?2")
        defer { statement.reset() }
        statement.bind(Int64(clamping: limit), at: 2)
        var last: [UInt8] = []
        var any = false
        try (after ?? []).withUnsafeBufferPointer { key throws(StoreError) in
            if after != nil { statement.bindStatic(key, 0..<key.count, at: 1) }
            while try statement.step() {
                try statement.withText(at: 0) { bytes in
                    body(bytes)
                    last.removeAll(keepingCapacity: true)
                    last.append(contentsOf: bytes)
                }
                any = true
            }
        }
        return any ? last : nil
    }

    /// The rows of `commands` after `id` (from the first for nil), at most `limit`, in id order
    /// (bytewise: the key's order).
    func commandRecords(after id: String?, limit: Int) throws(StoreError) -> [CommandRecord] {
        let columns = "SELECT id, navigator, seq, reply, fingerprint FROM commands"
        let statement = try statement(
            id == nil ? "\(columns) ORDER BY id LIMIT ?1" : "\(columns) WHERE id > ?2 ORDER BY id LIMIT ?1")
        defer { statement.reset() }
        statement.bind(Int64(clamping: limit), at: 1)
        if let id { statement.bind(id, at: 2) }
        var records: [CommandRecord] = []
        while try statement.step() {
            let reply = try statement.text(at: 3).map { text throws(StoreError) in try StoreJSON.decode(text) }
            records.append(
                CommandRecord(
                    id: statement.text(at: 0) ?? "", navigator: statement.text(at: 1),
                    seq: statement.isNull(at: 2) ? nil : statement.int64(at: 2), reply: reply,
                    fingerprint: statement.isNull(at: 4) ? nil : UInt64(bitPattern: statement.int64(at: 4))))
        }
        return records
    }

    package func events(after seq: Int64, navigator: String?, limit: Int) throws(StoreError) -> [EventRecord] {
        let statement: Statement
        if let navigator {
            statement = try self.statement(
                "SELECT \(Self.eventColumns) FROM events WHERE navigator = ? AND seq > ? ORDER BY seq LIMIT ?")
            statement.bind(navigator, at: 1)
            statement.bind(seq, at: 2)
            statement.bind(Int64(clamping: limit), at: 3)
        } else {
            statement = try self.statement("SELECT \(Self.eventColumns) FROM events WHERE seq > ? ORDER BY seq LIMIT ?")
            statement.bind(seq, at: 1)
            statement.bind(Int64(clamping: limit), at: 2)
        }
        return try collect(statement)
    }

    func lastSeq() throws(StoreError) -> Int64 { try database.scalarInt("SELECT COALESCE(MAX(seq), 0) FROM events") }

    /// The event with the highest seq, nil for an empty log.
    package func lastEvent() throws(StoreError) -> EventRecord? {
        try collect(statement("SELECT \(Self.eventColumns) FROM events ORDER BY seq DESC LIMIT 1")).first
    }

    package func events(of navigator: String, after seq: Int64, upTo last: Int64) throws(StoreError) -> [EventRecord] {
        let statement = try statement(
            "SELECT \(Self.eventColumns) FROM events WHERE navigator = ? AND seq > ? AND seq <= ? ORDER BY seq")
        statement.bind(navigator, at: 1)
        statement.bind(seq, at: 2)
        statement.bind(last, at: 3)
        return try collect(statement)
    }

    /// Every event with seq in `(seq, last]`, in seq order, one at a time.
    func forEachEvent(
        after seq: Int64, through last: Int64 = .max, _ body: (EventRecord) throws(StoreError) -> Void
    ) throws(StoreError) {
        let statement = try statement("SELECT \(Self.eventColumns) FROM events WHERE seq > ? AND seq <= ? ORDER BY seq")
        defer { statement.reset() }
        statement.bind(seq, at: 1)
        statement.bind(last, at: 2)
        while try statement.step() {
            try body(Self.event(statement))
        }
    }

    /// Distinct navigators by skip-scan: one index seek per navigator instead of a scan of the log.
    /// Standard SQL, so the PostgreSQL store runs the same text.
    package static let navigatorsSQL = """
        WITH RECURSIVE names(name) AS (
            SELECT MIN(navigator) FROM events
            UNION ALL
            SELECT (SELECT MIN(navigator) FROM events WHERE navigator > names.name) FROM names
            WHERE names.name IS NOT NULL
        )
        SELECT name FROM names WHERE name IS NOT NULL
        """

    func navigators() throws(StoreError) -> [String] {
        let statement = try statement(Self.navigatorsSQL)
        defer { statement.reset() }
        var names: [String] = []
        while try statement.step() {
            if let name = statement.text(at: 0) { names.append(name) }
        }
        return names
    }

    /// The newest snapshot of each navigator, in name order, one key seek per navigator: rows sort by
    /// (navigator, seq), so read backwards the first row before a name is the newest of the name
    /// before it. The table keeps every checkpoint's rows (a time-travel fold starts from them), so
    /// a scan of it grows with the log, and so does each seek's depth: a skip-scan that took three
    /// seeks per navigator (the next name, its newest seq, the row) read three times the pages.
    func latestSnapshots() throws(StoreError) -> [Snapshot] {
        let columns = "SELECT navigator, seq, revision, state FROM snapshots"
        let last = try statement(columns + " ORDER BY navigator DESC, seq DESC LIMIT 1")
        let before = try statement(columns + " WHERE navigator < ? ORDER BY navigator DESC, seq DESC LIMIT 1")
        var descending: [Snapshot] = []
        do {
            defer { last.reset() }
            guard try last.step() else { return [] }
            descending.append(try Self.snapshot(last))
        }
        while true {
            defer { before.reset() }
            before.bind(descending[descending.count - 1].navigator, at: 1)
            guard try before.step() else { break }
            descending.append(try Self.snapshot(before))
        }
        return descending.reversed()
    }

    package func snapshot(of navigator: String, atOrBefore seq: Int64) throws(StoreError) -> Snapshot? {
        let statement = try statement(
            "SELECT navigator, seq, revision, state FROM snapshots WHERE navigator = ? AND seq <= ? "
                + "ORDER BY seq DESC LIMIT 1")
        defer { statement.reset() }
        statement.bind(navigator, at: 1)
        statement.bind(seq, at: 2)
        guard try statement.step() else { return nil }
        return try Self.snapshot(statement)
    }

    func integrityCheck() throws(StoreError) -> [String] {
        let statement = try database.prepare("PRAGMA integrity_check")
        var findings: [String] = []
        while try statement.step() {
            if let line = statement.text(at: 0), line != "ok" { findings.append(line) }
        }
        return findings
    }

    /// Up to `limit` events with seq in `(seq, last]`, in seq order, read by one statement that is
    /// done before they are handed on. Each is decoded as it is read; one that cannot be is the last,
    /// a failure, so that it fails where a walk reaches it and not ahead of the events before it.
    func page(after seq: Int64, through last: Int64, limit: Int) throws(StoreError) -> [Result<EventRecord, StoreError>]
    {
        let statement = try statement(
            "SELECT \(Self.eventColumns) FROM events WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?")
        defer { statement.reset() }
        statement.bind(seq, at: 1)
        statement.bind(last, at: 2)
        statement.bind(Int64(limit), at: 3)
        var rows: [Result<EventRecord, StoreError>] = []
        while try statement.step() {
            do throws(StoreError) { rows.append(.success(try Self.event(statement))) } catch {
                rows.append(.failure(error))
                break
            }
        }
        return rows
    }

    // MARK: Rows

    private func collect(_ statement: Statement) throws(StoreError) -> [EventRecord] {
        defer { statement.reset() }
        var events: [EventRecord] = []
        while try statement.step() { events.append(try Self.event(statement)) }
        return events
    }

    /// The current row of a statement selecting `eventColumns`.
    static func event(_ row: Statement) throws(StoreError) -> EventRecord {
        let seq = row.int64(at: 0)
        let json: JSON
        do throws(StoreError) {
            json = try row.withText(at: 8) { bytes throws(StoreError) in try StoreJSON.decode(bytes) }
        } catch {
            // Which row: an operator restoring or repairing the file needs the seq, not just the fault.
            throw StoreError(kind: .invalidData, message: "Event \(seq): \(error.message)")
        }
        guard case .object(let data) = json else {
            throw StoreError(kind: .invalidData, message: "Event \(seq) has data that is not a JSON object.")
        }
        return EventRecord(
            seq: seq, navigator: row.text(at: 1) ?? "", revision: row.int64(at: 2), type: row.text(at: 3) ?? "",
            version: Int(row.int64(at: 4)), frame: row.int64(at: 5), time: row.int64(at: 6),
            command: row.text(at: 7), data: data)
    }

    private static func snapshot(_ row: Statement) throws(StoreError) -> Snapshot {
        let navigator = row.text(at: 0) ?? ""
        let seq = row.int64(at: 1)
        do throws(StoreError) {
            return Snapshot(
                navigator: navigator, seq: seq, revision: row.int64(at: 2),
                state: try StoreJSON.decode(row.text(at: 3) ?? ""))
        } catch {
            throw StoreError(
                kind: .invalidData, message: "The snapshot of \(navigator) at seq \(seq): \(error.message)")
        }
    }
}

@available(*, unavailable)
extension LogReader: Sendable {}

extension StoredCommand {
    /// From a row of `SELECT reply, fingerprint FROM commands`.
    init(_ row: Statement) throws(StoreError) {
        let reply = try row.text(at: 0).map { text throws(StoreError) in try StoreJSON.decode(text) }
        self.init(reply: reply, fingerprint: row.isNull(at: 1) ? nil : UInt64(bitPattern: row.int64(at: 1)))
    }
}
