import CSQLite

/// A prepared statement, owned like its connection: `init` prepares and throws, `deinit` finalizes.
///
/// Statements are prepared once and reused (`reset` between uses), which is most of SQLite's insert
/// speed. Text is bound with `SQLITE_TRANSIENT` so SQLite copies it before Swift frees the buffer.
package final class Statement {
    let handle: OpaquePointer
    let sql: String
    /// Keeps the connection open for as long as the statement exists.
    let database: Database

    init(database: Database, sql: String) throws(StoreError) {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw database.error(rc, sql: sql) }
        self.handle = statement
        self.sql = sql
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }

    // MARK: Binding (1-based indices, as in SQLite)

    package func bind(_ value: Int64, at index: Int32) {
        sqlite3_bind_int64(handle, index, value)
    }

    package func bind(_ value: Int64?, at index: Int32) {
        guard let value else {
            sqlite3_bind_null(handle, index)
            return
        }
        sqlite3_bind_int64(handle, index, value)
    }

    package func bind(_ value: String?, at index: Int32) {
        guard var value else {
            sqlite3_bind_null(handle, index)
            return
        }
        value.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                _ = csqlite_bind_text_transient(handle, index, chars.baseAddress, Int32(chars.count))
            }
        }
    }

    /// Binds `range` of `buffer` as text without a copy (`SQLITE_STATIC`): the bytes must stay valid
    /// and unchanged until the statement is reset, so bind and run inside the buffer's scope.
    func bindStatic(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, at index: Int32) {
        // A nil destructor is SQLITE_STATIC. An empty buffer has no address: bind a static ''.
        let start =
            buffer.baseAddress.map { UnsafeRawPointer($0 + range.lowerBound) }
            ?? UnsafeRawPointer(StaticString("").utf8Start)
        sqlite3_bind_text(handle, index, start.assumingMemoryBound(to: CChar.self), Int32(range.count), nil)
    }

    /// Clears the previous run so the statement can run again with new bindings.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: Stepping

    /// Advances to the next row: true when there is one, false when done.
    func step() throws(StoreError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = database.error(rc, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Runs a statement that returns no rows, then resets it for the next use.
    package func run() throws(StoreError) {
        defer { reset() }
        while try step() {}
    }

    // MARK: Columns (0-based indices, as in SQLite)

    func int64(at column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    func isNull(at column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    /// The column's UTF-8 bytes, valid only during `body` (empty for NULL): parse without a copy.
    func withText<T>(at column: Int32, _ body: (UnsafeRawBufferPointer) throws(StoreError) -> T) throws(StoreError) -> T
    {
        let bytes = sqlite3_column_text(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        return try body(UnsafeRawBufferPointer(start: bytes, count: bytes == nil ? 0 : count))
    }

    /// The column as UTF-8 text, `nil` for NULL.
    func text(at column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}

@available(*, unavailable)
extension Statement: Sendable {}
