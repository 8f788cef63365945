import CSQLite
import SegueCore

/// A batch's events on their way into `events`: inserted `rowsPerInsert` to a statement, and the rest
/// in one statement of their number. A one-row INSERT pays SQLite's statement start, two cursor opens
/// and closes and a reset for each event, about as much as the row.
///
/// The rows' text columns lie back to back in one buffer, bound without a copy (`SQLITE_STATIC`);
/// both arrays are reused from batch to batch.
struct EventRows {
    static let rowsPerInsert = 16

    /// At most `rowsPerInsert - 1` between calls.
    private var rows: [Row] = []
    private var text: [UInt8] = []

    private struct Row {
        var seq: Int64
        var revision: Int64
        var version: Int64
        var frame: Int64
        var time: Int64
        var navigator: Range<Int>
        var type: Range<Int>
        var command: Range<Int>?
        var data: Range<Int>
    }

    /// Adds `events`, inserting a full statement's worth when there is one. Rows still queued are
    /// inserted by `flush` before COMMIT; the order of inserts inside the transaction changes
    /// nothing, and a failed insert fails the whole batch either way.
    mutating func queue(_ events: [EventRecord], encoded: [EncodedEvent]?, _ connection: LogWriter.Connection)
        throws(StoreError)
    {
        for (index, event) in events.enumerated() {
            let navigator = text.appendUTF8(event.navigator)
            let type = text.appendUTF8(event.type)
            let command = event.command.map { text.appendUTF8($0) }
            let dataStart = text.count
            if let body = encoded?[index] {
                text.append(contentsOf: body.bytes[body.data])
            } else {
                JSON.object(event.data).serialize(into: &text)
            }
            rows.append(
                Row(
                    seq: event.seq, revision: event.revision, version: Int64(event.version), frame: event.frame,
                    time: event.time, navigator: navigator, type: type, command: command,
                    data: dataStart..<text.count))
            if rows.count == Self.rowsPerInsert { try flush(connection) }
        }
    }

    /// Inserts the queued rows in one statement of exactly their number.
    mutating func flush(_ connection: LogWriter.Connection) throws(StoreError) {
        defer { removeAll() }
        guard !rows.isEmpty else { return }
        let statement = try connection.insertEvents(rows: rows.count)
        try text.withUnsafeBufferPointer { buffer throws(StoreError) in try Self.insert(rows[...], statement, buffer) }
    }

    /// Drops what is queued (after a failed batch).
    mutating func removeAll() {
        rows.removeAll(keepingCapacity: true)
        text.removeAll(keepingCapacity: true)
    }

    /// Binds `rows` to `statement` (9 parameters a row) and runs it; the text lives in `buffer`, so
    /// this runs (and resets the statement) inside the buffer's scope.
    private static func insert(_ rows: ArraySlice<Row>, _ statement: Statement, _ buffer: UnsafeBufferPointer<UInt8>)
        throws(StoreError)
    {
        var base: Int32 = 0
        for row in rows {
            statement.bind(row.seq, at: base + 1)
            statement.bindStatic(buffer, row.navigator, at: base + 2)
            statement.bind(row.revision, at: base + 3)
            statement.bindStatic(buffer, row.type, at: base + 4)
            statement.bind(row.version, at: base + 5)
            statement.bind(row.frame, at: base + 6)
            statement.bind(row.time, at: base + 7)
            if let command = row.command {
                statement.bindStatic(buffer, command, at: base + 8)
            } else {
                statement.bind(nil as String?, at: base + 8)
            }
            statement.bindStatic(buffer, row.data, at: base + 9)
            base += 9
        }
        try statement.run()
    }
}

extension [UInt8] {
    /// Appends `string`'s UTF-8 bytes and returns where they are.
    fileprivate mutating func appendUTF8(_ string: String) -> Range<Int> {
        let start = count
        append(contentsOf: string.utf8)
        return start..<count
    }
}
