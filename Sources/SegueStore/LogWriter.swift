import SegueCore

/// The write side of the log: one connection, its prepared statements and the numbering it checks.
///
/// Only the group committer's thread touches a `LogWriter`. It commits a batch of units in one
/// `BEGIN IMMEDIATE ... COMMIT` (one WAL sync per batch). Units that do not continue the log are
/// rejected one by one before anything is written; a storage error fails the whole batch, rolls it
/// back and re-reads the log's end from the file, so later appends continue with no gap.
final class LogWriter {
    let path: String
    let durability: Durability
    let busyTimeoutMilliseconds: Int32
    private var connection: Connection?
    /// The last committed `seq`.
    private(set) var lastSeq: Int64 = 0
    /// Last committed revision per navigator, filled lazily (reading every navigator at open would
    /// scan an index of the whole log).
    private var revisions: [String: Int64] = [:]
    /// The error of the last failed batch, while callers still submit units numbered on top of it.
    private var cascade: StoreError?

    /// The connection and the statements prepared on it, dropped together when it is poisoned.
    final class Connection {
        let database: Database
        let insertEvent: Statement
        let insertCommand: Statement
        let lastRevision: Statement
        let commandExists: Statement

        init(database: Database) throws(StoreError) {
            self.database = database
            insertEvent = try database.prepare(
                "INSERT INTO events (seq, navigator, revision, type, version, frame, time, command, data) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
            insertCommand = try database.prepare("INSERT INTO commands (id, navigator, seq, reply) VALUES (?, ?, ?, ?)")
            lastRevision = try database.prepare("SELECT MAX(revision) FROM events WHERE navigator = ?")
            commandExists = try database.prepare("SELECT 1 FROM commands WHERE id = ?")
        }
    }

    init(path: String, durability: Durability, busyTimeoutMilliseconds: Int32) {
        self.path = path
        self.durability = durability
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
    }

    /// Opens the connection: WAL (checking SQLite's answer), the durability's `synchronous` level, a
    /// quick check when asked, then the schema.
    func open(quickCheck: Bool) throws(StoreError) {
        let database = try Database(path: path)
        database.setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
        let mode = try database.scalarText("PRAGMA journal_mode = WAL")
        guard mode?.lowercased() == "wal" else {
            throw StoreError(
                kind: .sqlite,
                message: "SQLite refused WAL mode for \(path) (journal_mode is \(mode ?? "unknown")). "
                    + "Put the data directory on a local file system.", sql: "PRAGMA journal_mode = WAL")
        }
        try database.execute("PRAGMA synchronous = \(durability == .full ? "FULL" : "NORMAL")")
        if quickCheck, let failure = OpenCheck.quickCheck(path: path) { throw failure }
        try Schema.migrate(database)
        let connection = try Connection(database: database)
        self.connection = connection
        lastSeq = try database.scalarInt("SELECT MAX(seq) FROM events")
        revisions = [:]
    }

    /// The live connection, reopened if a fault poisoned the previous one.
    func liveConnection() throws(StoreError) -> Connection {
        if let connection { return connection }
        try open(quickCheck: true)
        return connection!
    }

    func close() { connection = nil }

    /// Runs `body` on the write connection; used for snapshots, imports and test fault injection.
    func withDatabase<T>(_ body: (Database) throws(StoreError) -> T) throws(StoreError) -> T {
        try body(liveConnection().database)
    }

    // MARK: Committing

    /// Commits `units` in one transaction and returns one result per unit, in order.
    func commit(_ units: [AppendUnit]) -> [Result<Void, StoreError>] {
        var results = [Result<Void, StoreError>](repeating: .success(()), count: units.count)
        let connection: Connection
        do throws(StoreError) {
            connection = try liveConnection()
        } catch {
            return results.map { _ in .failure(error) }
        }
        let database = connection.database
        var seq = lastSeq
        var working: [String: Int64] = [:]
        var commandsInBatch = Set<String>()
        var updates: [(navigator: String, revision: Int64)] = []
        var accepted = false
        do throws(StoreError) {
            try database.execute("BEGIN IMMEDIATE")
            for (index, unit) in units.enumerated() {
                updates.removeAll(keepingCapacity: true)
                if let rejection = try validate(
                    unit, after: seq, working: working, updates: &updates, commandsInBatch: commandsInBatch, connection)
                {
                    results[index] = .failure(rejection)
                    continue
                }
                try write(unit, connection, lastSeq: unit.events.last?.seq ?? seq)
                for update in updates { working[update.navigator] = update.revision }
                seq = unit.events.last?.seq ?? seq
                if let id = unit.commandID { commandsInBatch.insert(id) }
                accepted = true
            }
            try database.execute("COMMIT")
        } catch {
            // Never retry a failed commit in place (fsyncgate): fail every unit of the batch, let the
            // callers renumber from the log's real end.
            database.rollbackQuietly()
            recover(after: error)
            return results.map { result in
                if case .failure = result { return result }
                return .failure(error)
            }
        }
        lastSeq = seq
        revisions.merge(working) { _, new in new }
        if accepted { cascade = nil }
        return results
    }

    /// Why `unit` cannot follow `seq` and the batch's `working` revisions, or nil; then `updates` holds
    /// the revisions it brings (kept apart so a rejected unit costs no copy of `working`).
    private func validate(
        _ unit: AppendUnit, after seq: Int64, working: [String: Int64],
        updates: inout [(navigator: String, revision: Int64)], commandsInBatch: Set<String>, _ connection: Connection
    ) throws(StoreError) -> StoreError? {
        for (offset, event) in unit.events.enumerated() {
            let expected = seq + 1 + Int64(offset)
            guard event.seq == expected else {
                if let cascade, event.seq > expected {
                    return StoreError(
                        kind: cascade.kind, extendedCode: cascade.extendedCode,
                        message: "Not stored: an earlier append it was numbered after failed (\(cascade.message)).",
                        sql: cascade.sql)
                }
                return StoreError(
                    kind: .outOfSequence,
                    message: "Event seq \(event.seq) does not continue the log, whose next seq is \(expected). "
                        + "Renumber from the store's lastSeq and resubmit.")
            }
            let last: Int64
            if let pending = updates.last(where: { $0.navigator == event.navigator }) {
                last = pending.revision
            } else if let known = working[event.navigator] {
                last = known
            } else {
                last = try lastRevision(of: event.navigator, connection)
            }
            guard event.revision == last + 1 else {
                return StoreError(
                    kind: .outOfSequence,
                    message: "Event seq \(event.seq) has revision \(event.revision) for navigator "
                        + "\"\(event.navigator)\", whose next revision is \(last + 1). Renumber and resubmit.")
            }
            updates.append((event.navigator, event.revision))
        }
        if let id = unit.commandID {
            let statement = connection.commandExists
            statement.bind(id, at: 1)
            defer { statement.reset() }
            var exists = commandsInBatch.contains(id)
            if !exists { exists = try statement.step() }
            if exists {
                return StoreError(
                    kind: .duplicateCommand,
                    message: "Command id \"\(id)\" was already applied; its stored reply answers the retry.")
            }
        }
        return nil
    }

    private func lastRevision(of navigator: String, _ connection: Connection) throws(StoreError) -> Int64 {
        if let known = revisions[navigator] { return known }
        let statement = connection.lastRevision
        statement.bind(navigator, at: 1)
        defer { statement.reset() }
        _ = try statement.step()
        let value = statement.int64(at: 0)
        revisions[navigator] = value
        return value
    }

    private func write(_ unit: AppendUnit, _ connection: Connection, lastSeq: Int64) throws(StoreError) {
        let insert = connection.insertEvent
        for event in unit.events {
            insert.bind(event.seq, at: 1)
            insert.bind(event.navigator, at: 2)
            insert.bind(event.revision, at: 3)
            insert.bind(event.type, at: 4)
            insert.bind(Int64(event.version), at: 5)
            insert.bind(event.frame, at: 6)
            insert.bind(event.time, at: 7)
            insert.bind(event.command, at: 8)
            insert.bind(StoreJSON.encode(.object(event.data)), at: 9)
            try insert.run()
        }
        if let id = unit.commandID {
            let insert = connection.insertCommand
            insert.bind(id, at: 1)
            insert.bind(unit.navigator, at: 2)
            if unit.events.isEmpty { insert.bind(nil as String?, at: 3) } else { insert.bind(lastSeq, at: 3) }
            insert.bind(unit.reply.map(StoreJSON.encode), at: 4)
            try insert.run()
        }
    }

    /// After a failed batch: drop a connection that saw an I/O fault, and re-read where the log ends.
    private func recover(after error: StoreError) {
        cascade = error
        revisions = [:]
        if error.poisonsConnection { connection = nil }
        if let database = try? liveConnection().database,
            let last = try? database.scalarInt("SELECT MAX(seq) FROM events")
        {
            lastSeq = last
        }
    }
}

@available(*, unavailable)
extension LogWriter: Sendable {}
