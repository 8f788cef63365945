import SegueCore
import SegueStore

/// A small batch (the common one: a command's few events) inserts its rows as `VALUES` with scalar
/// parameters. Building and unpacking a one-element array per column costs the server more than the
/// rows themselves: measured in the server alone, 3,000 one-event commands took 150 ms through
/// `unnest` and 60 ms through `VALUES`.
enum SmallRows {
    static let maxEvents = 4
    static let maxCommands = 4

    /// The one statement that inserts every row of `units` (`events` events, `commands` commands
    /// rows), or nil when they are too many for `VALUES` or have no events (a commands row alone
    /// goes through the arrays' statement).
    static func step(_ units: [AppendUnit], events: Int, commands: Int) -> PipelineStep? {
        guard events > 0, events <= maxEvents, commands <= maxCommands else { return nil }
        var parameters = PostgresParameters(
            values: events * eventTypes.count + commands * commandTypes.count, bytes: 512 * events + 256 * commands)
        for unit in units {
            for (index, event) in unit.events.enumerated() {
                append(event, encoded: unit.encoded?[index], to: &parameters)
            }
        }
        for unit in units {
            if let id = unit.commandID { append(id: id, unit: unit, to: &parameters) }
        }
        return .prepared(statements[events - 1][commands], parameters)
    }

    private static func append(_ event: EventRecord, encoded: EncodedEvent?, to parameters: inout PostgresParameters) {
        parameters.append(event.seq)
        parameters.append(event.navigator)
        parameters.append(event.revision)
        parameters.append(event.type)
        parameters.append(Int64(event.version))
        parameters.append(event.frame)
        parameters.append(event.time)
        if let id = event.command {
            parameters.append(bytes: id.utf8)
        } else {
            parameters.appendNull(.bytea)
        }
        if let encoded {
            parameters.append(bytes: encoded.bytes[encoded.data], as: .text)
        } else {
            var bytes: [UInt8] = []
            JSON.object(event.data).serialize(into: &bytes)
            parameters.append(bytes: bytes, as: .text)
        }
    }

    /// The columns `CommandColumns` sends, one value each.
    private static func append(id: String, unit: AppendUnit, to parameters: inout PostgresParameters) {
        parameters.append(bytes: id.utf8)
        parameters.append(unit.navigator)
        parameters.append(unit.events.last?.seq)
        parameters.append(unit.reply.map(StoreJSON.encode), as: .text)
        parameters.append(unit.fingerprint.map { Int64(bitPattern: $0) })
    }

    static let eventTypes: [PostgresType] = [.int8, .text, .int8, .text, .int8, .int8, .int8, .bytea, .text]
    static let commandTypes: [PostgresType] = [.bytea, .text, .int8, .text, .int8]

    /// `statements[events - 1][commands]`: one prepared statement per shape, named for it.
    static let statements: [[PreparedStatement]] = (1...maxEvents).map { events in
        (0...maxCommands).map { commands in statement(events: events, commands: commands) }
    }

    private static func statement(events: Int, commands: Int) -> PreparedStatement {
        var next = 0
        func row(_ width: Int) -> String {
            defer { next += width }
            return "(" + (1...width).map { "$\(next + $0)" }.joined(separator: ", ") + ")"
        }
        let eventRows = (0..<events).map { _ in row(eventTypes.count) }.joined(separator: ", ")
        let commandRows = (0..<commands).map { _ in row(commandTypes.count) }.joined(separator: ", ")
        var sql = ""
        if commands > 0 {
            sql +=
                "WITH commands_rows AS (INSERT INTO commands (id, navigator, seq, reply, fingerprint) VALUES "
                + commandRows + ") "
        }
        sql +=
            "INSERT INTO events (seq, navigator, revision, type, version, frame, time, command, data) VALUES "
            + eventRows
        let types =
            Array(repeating: eventTypes, count: events).flatMap { $0 }
            + Array(repeating: commandTypes, count: commands).flatMap { $0 }
        return PreparedStatement("segue_append_\(events)e\(commands)c", sql, types)
    }
}
