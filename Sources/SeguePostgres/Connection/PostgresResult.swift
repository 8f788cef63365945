import CPostgres

/// The rows of one statement, owned: `deinit` frees libpq's result (`PQclear`).
///
/// Results come in binary format, so integers are read without parsing text; every accessor checks
/// the column's type and nullness first, and a mismatch is an error rather than a misread value.
package final class PostgresResult {
    let handle: OpaquePointer
    /// The statement, for errors.
    let statement: String?

    init(handle: OpaquePointer, statement: String?) {
        self.handle = handle
        self.statement = statement
    }

    deinit { PQclear(handle) }

    package var rowCount: Int { Int(PQntuples(handle)) }
    package var columnCount: Int { Int(PQnfields(handle)) }

    /// Rows an INSERT, UPDATE or DELETE touched (`PQcmdTuples`), 0 when the command reports none.
    package var affectedRows: Int64 { PQcmdTuples(handle).flatMap { Int64(String(cString: $0)) } ?? 0 }

    package func isNull(_ row: Int, _ column: Int) -> Bool { PQgetisnull(handle, Int32(row), Int32(column)) == 1 }

    package func type(of column: Int) -> PostgresType { PostgresType(rawValue: PQftype(handle, Int32(column))) }

    /// An integer column (`bigint`, `integer`, `smallint`, `oid`); nil for NULL.
    package func int64(_ row: Int, _ column: Int) throws(PostgresError) -> Int64? {
        try check(row, column)
        guard !isNull(row, column) else { return nil }
        return try withBytes(row, column) { bytes throws(PostgresError) in
            switch (type(of: column), bytes.count) {
            case (.int8, 8): return Int64(bigEndian: bytes.loadUnaligned(as: Int64.self))
            case (.int4, 4): return Int64(Int32(bigEndian: bytes.loadUnaligned(as: Int32.self)))
            case (.oid, 4): return Int64(UInt32(bigEndian: bytes.loadUnaligned(as: UInt32.self)))
            case (.int2, 2): return Int64(Int16(bigEndian: bytes.loadUnaligned(as: Int16.self)))
            default: throw mismatch(column, "an integer")
            }
        }
    }

    /// A `boolean` column; nil for NULL.
    package func bool(_ row: Int, _ column: Int) throws(PostgresError) -> Bool? {
        try check(row, column)
        guard !isNull(row, column) else { return nil }
        guard type(of: column) == .bool else { throw mismatch(column, "a boolean") }
        return try withBytes(row, column) { bytes in bytes.first == 1 }
    }

    /// A `text`, `varchar`, `name` or `json` column as a string; nil for NULL.
    package func string(_ row: Int, _ column: Int) throws(PostgresError) -> String? {
        try check(row, column)
        guard !isNull(row, column) else { return nil }
        guard [.text, .varchar, .name, .json].contains(type(of: column)) else { throw mismatch(column, "text") }
        return try withBytes(row, column) { bytes in String(decoding: bytes, as: UTF8.self) }
    }

    /// The column's binary value (a `bytea`'s bytes, a text's UTF-8), valid only during `body`;
    /// empty for NULL. For parsing in place, without a copy.
    package func withBytes<T>(_ row: Int, _ column: Int, _ body: (UnsafeRawBufferPointer) throws(PostgresError) -> T)
        throws(PostgresError) -> T
    {
        try check(row, column)
        let length = Int(PQgetlength(handle, Int32(row), Int32(column)))
        let start = PQgetvalue(handle, Int32(row), Int32(column))
        return try body(UnsafeRawBufferPointer(start: start, count: start == nil ? 0 : length))
    }

    private func check(_ row: Int, _ column: Int) throws(PostgresError) {
        guard (0..<rowCount).contains(row), (0..<columnCount).contains(column) else {
            throw PostgresError(
                sqlState: SQLState.internalError,
                message: "No row \(row), column \(column) in a result of \(rowCount) rows and \(columnCount) columns.",
                statement: statement)
        }
    }

    private func mismatch(_ column: Int, _ wanted: String) -> PostgresError {
        let name = PQfname(handle, Int32(column)).map { String(cString: $0) } ?? "\(column)"
        return PostgresError(
            sqlState: SQLState.invalidBinaryRepresentation,
            message: "Column \(name) has type OID \(type(of: column).rawValue), not \(wanted).", statement: statement)
    }
}

@available(*, unavailable)
extension PostgresResult: Sendable {}
