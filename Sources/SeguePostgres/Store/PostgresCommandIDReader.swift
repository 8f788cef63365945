import SegueStore

/// Walks the `commands` table's ids in key order (bytewise, as `bytea` compares), a page per
/// statement on a connection of its own, resuming after the last id of the page before: the same
/// promises as SQLite's `CommandIDReader` (every id stored when the walk began is passed once).
package final class PostgresCommandIDReader: CommandIDWalking {
    private let reader: PostgresLogReader

    init(settings: ConnectionSettings) {
        reader = PostgresLogReader(settings: settings)
    }

    deinit { reader.close() }

    static let firstPage = PreparedStatement(
        "segue_command_ids_first", "SELECT id FROM commands ORDER BY id LIMIT $1", [.int8])
    static let nextPage = PreparedStatement(
        "segue_command_ids_next", "SELECT id FROM commands WHERE id > $1 ORDER BY id LIMIT $2", [.bytea, .int8])

    @discardableResult
    package func walk(pageSize: Int = 4096, _ body: (UnsafeRawBufferPointer) -> Bool) throws(StoreError) -> Bool {
        precondition(pageSize > 0)
        var after: [UInt8]?
        while true {
            var parameters = PostgresParameters()
            if let after { parameters.append(bytes: after) }
            parameters.append(Int64(pageSize))
            let statement = after == nil ? Self.firstPage : Self.nextPage
            let page = try reader.withConnection { connection throws(PostgresError) in
                try connection.execute(statement, parameters)
            }
            for row in 0..<page.rowCount {
                let going = try mapped("Cannot read a command id") { () throws(PostgresError) in
                    try page.withBytes(row, 0) { bytes in body(bytes) }
                }
                guard going else { return false }
            }
            guard page.rowCount == pageSize else { return true }
            after = try mapped("Cannot read a command id") { () throws(PostgresError) in
                try page.withBytes(page.rowCount - 1, 0) { bytes in Array(bytes) }
            }
        }
    }
}

@available(*, unavailable)
extension PostgresCommandIDReader: Sendable {}
