import SegueCore
import SegueStore

/// One batch's accepted units and the statements that insert their rows: every event, and a
/// commands row per unit with an id.
///
/// A statement binds one array per column and inserts with `unnest`, so a batch of thousands of
/// events costs a few statements; arrays are cut at `rowsPerStatement` to keep each bind well below
/// PostgreSQL's 1 GB limit on a value. A small batch binds its rows as scalars instead (`SmallRows`).
/// Nothing is bound until the batch is sent, and what only a lost commit needs (`eventKeys`,
/// `commandIDs`) is worked out from the units then.
struct PostgresBatch {
    static let rowsPerStatement = 4096

    static let insertEvents = PreparedStatement(
        "segue_insert_events",
        """
        INSERT INTO events (seq, navigator, revision, type, version, frame, time, command, data)
        SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::bigint[], $6::bigint[],
            $7::bigint[], $8::bytea[], $9::text[])
        """,
        [.int8Array, .textArray, .int8Array, .textArray, .int8Array, .int8Array, .int8Array, .byteaArray, .textArray])

    static let insertCommands = PreparedStatement(
        "segue_insert_commands",
        """
        INSERT INTO commands (id, navigator, seq, reply, fingerprint)
        SELECT * FROM unnest($1::bytea[], $2::text[], $3::bigint[], $4::text[], $5::bigint[])
        """, [.byteaArray, .textArray, .int8Array, .textArray, .int8Array])

    /// The commands rows and the first events chunk in one statement: a batch of commands (the
    /// common one) then costs the server one statement in its transaction, as a plain
    /// one-row insert does. Both inserts see the same snapshot; no constraint links the tables.
    static let insertCommandsAndEvents = PreparedStatement(
        "segue_insert_commands_events",
        """
        WITH commands_rows AS (
            INSERT INTO commands (id, navigator, seq, reply, fingerprint)
            SELECT * FROM unnest($10::bytea[], $11::text[], $12::bigint[], $13::text[], $14::bigint[]))
        INSERT INTO events (seq, navigator, revision, type, version, frame, time, command, data)
        SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::bigint[], $6::bigint[],
            $7::bigint[], $8::bytea[], $9::text[])
        """, insertEvents.parameterTypes + insertCommands.parameterTypes)

    /// The accepted units, in order; their rows are bound only when the batch is sent (`steps`).
    private var units: [AppendUnit] = []
    private var eventCount = 0
    private var commandCount = 0

    var isEmpty: Bool { eventCount == 0 && commandCount == 0 }

    /// What a read-back looks for when the commit's outcome is lost, worked out only then.
    var firstSeq: Int64? { units.lazy.compactMap { $0.events.first?.seq }.first }
    var lastSeq: Int64? { units.reversed().lazy.compactMap { $0.events.last?.seq }.first }
    var commandIDs: [[UInt8]] { units.compactMap { $0.commandID.map { Array($0.utf8) } } }
    /// Each event's identity, for the read-back: after a rollback the same seqs may hold another
    /// batch's events, so that the range is full says nothing about whether this batch committed.
    var eventKeys: [EventKey] { units.flatMap { $0.events.map(EventKey.init) } }
    var navigators: [String] { units.flatMap { $0.events.map(\.navigator) } }

    /// Adds an accepted unit: its events, and its commands row when it has an id.
    mutating func add(_ unit: AppendUnit) {
        units.append(unit)
        eventCount += unit.events.count
        if unit.commandID != nil { commandCount += 1 }
    }

    /// The inserts (`VALUES` while the batch is small, arrays beyond), for one implicit transaction
    /// (`PostgresConnection.transaction`): one pipeline, one round trip.
    func steps() -> [PipelineStep] {
        if let values = SmallRows.step(units, events: eventCount, commands: commandCount) { return [values] }
        var eventChunks: [EventColumns] = []
        var commandChunks: [CommandColumns] = []
        for unit in units {
            for (index, event) in unit.events.enumerated() {
                if eventChunks.last.map({ $0.count >= Self.rowsPerStatement }) ?? true {
                    eventChunks.append(EventColumns())
                }
                eventChunks[eventChunks.count - 1].add(event, encoded: unit.encoded?[index])
            }
            if let id = unit.commandID {
                // Cut as the events are: an import's ids, replies included, may be millions of rows.
                if commandChunks.last.map({ $0.count >= Self.rowsPerStatement }) ?? true {
                    commandChunks.append(CommandColumns())
                }
                commandChunks[commandChunks.count - 1].add(id: id, unit: unit)
            }
        }
        var steps: [PipelineStep] = []
        var chunks = eventChunks[...]
        for (index, commands) in commandChunks.enumerated() {
            if index == 0, let first = chunks.popFirst() {
                var parameters = first.parameters()
                commands.append(to: &parameters)
                steps.append(.prepared(Self.insertCommandsAndEvents, parameters))
            } else {
                var parameters = PostgresParameters()
                commands.append(to: &parameters)
                steps.append(.prepared(Self.insertCommands, parameters))
            }
        }
        for chunk in chunks { steps.append(.prepared(Self.insertEvents, chunk.parameters())) }
        return steps
    }
}

/// What tells one stored event from another decided on the same seq: its navigator, revision, type,
/// time and command. Two events that agree in all of them are the same decision (a completion
/// decided again at the same frame after a rollback), so taking one for the other loses nothing.
struct EventKey: Equatable {
    var seq: Int64
    var navigator: String
    var revision: Int64
    var type: String
    var time: Int64
    var command: String?
}

extension EventKey {
    init(_ event: EventRecord) {
        self.init(
            seq: event.seq, navigator: event.navigator, revision: event.revision, type: event.type, time: event.time,
            command: event.command)
    }
}

/// The nine event columns as arrays.
struct EventColumns {
    private var seq = PostgresArray(of: .int8)
    private var navigator = PostgresArray(of: .text)
    private var revision = PostgresArray(of: .int8)
    private var type = PostgresArray(of: .text)
    private var version = PostgresArray(of: .int8)
    private var frame = PostgresArray(of: .int8)
    private var time = PostgresArray(of: .int8)
    private var command = PostgresArray(of: .bytea)
    private var data = PostgresArray(of: .text)

    var count: Int { Int(seq.count) }

    /// `encoded` is the event's wire body, whose `data` span is copied instead of serializing again.
    mutating func add(_ event: EventRecord, encoded: EncodedEvent?) {
        seq.append(event.seq)
        navigator.append(event.navigator)
        revision.append(event.revision)
        type.append(event.type)
        version.append(Int64(event.version))
        frame.append(event.frame)
        time.append(event.time)
        if let id = event.command { command.append(id) } else { command.appendNull() }
        if let encoded {
            data.append(bytes: encoded.bytes[encoded.data])
        } else {
            var bytes: [UInt8] = []
            JSON.object(event.data).serialize(into: &bytes)
            data.append(bytes: bytes)
        }
    }

    func parameters() -> PostgresParameters {
        var parameters = PostgresParameters()
        for column in [seq, navigator, revision, type, version, frame, time, command, data] {
            parameters.append(column)
        }
        return parameters
    }
}

/// The five commands columns as arrays.
struct CommandColumns {
    private var id = PostgresArray(of: .bytea)
    private var navigator = PostgresArray(of: .text)
    private var seq = PostgresArray(of: .int8)
    private var reply = PostgresArray(of: .text)
    private var fingerprint = PostgresArray(of: .int8)

    var count: Int { Int(id.count) }

    mutating func add(id value: String, unit: AppendUnit) {
        add(
            CommandRecord(
                id: value, navigator: unit.navigator, seq: unit.events.last?.seq, reply: unit.reply,
                fingerprint: unit.fingerprint))
    }

    /// A row as another log stored it (an import's).
    mutating func add(_ record: CommandRecord) {
        id.append(record.id)
        if let name = record.navigator { navigator.append(name) } else { navigator.appendNull() }
        if let last = record.seq { seq.append(last) } else { seq.appendNull() }
        if let value = record.reply { reply.append(StoreJSON.encode(value)) } else { reply.appendNull() }
        if let value = record.fingerprint {
            fingerprint.append(Int64(bitPattern: value))
        } else {
            fingerprint.appendNull()
        }
    }

    func append(to parameters: inout PostgresParameters) {
        for column in [id, navigator, seq, reply, fingerprint] { parameters.append(column) }
    }
}
