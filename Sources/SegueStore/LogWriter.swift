import CSQLite
import Foundation
import SegueCore
import Synchronization

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
    /// Checks each unit's seq and revisions against the log before it is written.
    private var numbering = UnitNumbering()
    /// Checkpoints the WAL in the background; `schedule` decides when.
    let checkpointer: WALCheckpointer
    private var schedule = WALCheckpointSchedule()
    /// Called before each copy a checkpoint decision asked for, on the thread that runs it: tests
    /// check that the daemon's loop, which commits inline, never runs one.
    var beforeCopyForTesting: ((WALCheckpointSchedule.Copy) -> Void)?

    /// The connection and the statements prepared on it, dropped together when it is poisoned.
    ///
    /// `BEGIN IMMEDIATE` and `COMMIT` are prepared too: through `sqlite3_exec` they would be parsed
    /// again on every commit, which on the one-event path costs more than the insert.
    final class Connection {
        let database: Database
        let begin: Statement
        let commit: Statement
        /// `insertEvents[n - 1]` inserts n events in one statement, prepared the first time a batch
        /// has n rows left (one `EventRows.rowsPerInsert`-row statement per full chunk, then one for the rest).
        private var insertEvents: [Statement?] = Array(repeating: nil, count: EventRows.rowsPerInsert)
        let insertCommand: Statement
        let selectCommand: Statement
        let lastRevision: Statement

        init(database: Database) throws(StoreError) {
            self.database = database
            begin = try database.prepare("BEGIN IMMEDIATE")
            commit = try database.prepare("COMMIT")
            insertCommand = try database.prepare(
                "INSERT INTO commands (id, navigator, seq, reply, fingerprint) VALUES (?, ?, ?, ?, ?)")
            selectCommand = try database.prepare("SELECT reply, fingerprint FROM commands WHERE id = ?")
            lastRevision = try database.prepare("SELECT MAX(revision) FROM events WHERE navigator = ?")
        }

        /// `OR ROLLBACK`: a failed events insert already fails the whole batch (`commit`), and saying
        /// so lets SQLite skip the statement journal. Under the default `ABORT`, every multi-row
        /// insert inside the batch's transaction copied each page it touched into that journal (to
        /// undo just the statement), and past 64 KiB (16 pages: a 16-row statement over as many
        /// navigators) the journal spilled to a temporary file: open, unlink, ~17 writes, close, in
        /// the middle of the commit. The `commands` insert keeps `ABORT`: its duplicate check relies
        /// on undoing just that statement (a single-row insert, which never needs the journal).
        static func insertEventsSQL(rows: Int) -> String {
            "INSERT OR ROLLBACK INTO events (seq, navigator, revision, type, version, frame, time, command, data) VALUES "
                + Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ", ")
        }

        /// The statement that inserts `rows` events (1...`EventRows.rowsPerInsert`).
        func insertEvents(rows: Int) throws(StoreError) -> Statement {
            if let statement = insertEvents[rows - 1] { return statement }
            let statement = try database.prepare(Self.insertEventsSQL(rows: rows))
            insertEvents[rows - 1] = statement
            return statement
        }
    }

    init(
        path: String, durability: Durability, busyTimeoutMilliseconds: Int32,
        checkpointThreshold: Int32 = EventStore.defaultCheckpointThreshold
    ) {
        self.path = path
        self.durability = durability
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        checkpointer = WALCheckpointer(
            path: path, durability: durability, threshold: checkpointThreshold,
            busyTimeoutMilliseconds: busyTimeoutMilliseconds)
    }

    /// Why SQLite opened `path` read-only, for the refusal: a file system mounted read-only (an
    /// operator's remount, or the kernel's after an I/O error, met when a connection is opened again
    /// after a failed write), or a file this user may not write.
    static func notWritable(_ path: String) -> String {
        var fileSystem = statvfs()
        if statvfs(path, &fileSystem) == 0, fileSystem.f_flag & UInt(ST_RDONLY) != 0 {
            return "The event store \(path) is on a file system mounted read-only (by an operator, or by the "
                + "kernel after an error: see dmesg). Remount it read-write."
        }
        return "The event store \(path) cannot be written by this process (uid \(getuid())). Give that user the "
            + "file and its -wal and -shm files (for the packaged service: chown segue:segue)."
    }

    /// Opens the connection: WAL (checking SQLite's answer), the durability's `synchronous` level, a
    /// quick check when asked, then the schema.
    func open(quickCheck: Bool) throws(StoreError) {
        let database = try Database(path: path)
        // A writer that cannot write would report ready and fail every command: refuse at open.
        guard !database.isReadOnly else {
            throw StoreError(kind: .sqlite, extendedCode: SQLITE_READONLY, message: Self.notWritable(path))
        }
        database.setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
        // Before anything changes the file (WAL mode is written into its header).
        try Schema.refuseForeign(database)
        let mode = try database.scalarText("PRAGMA journal_mode = WAL")
        guard mode?.lowercased() == "wal" else {
            throw StoreError(
                kind: .sqlite,
                message: "SQLite refused WAL mode for \(path) (journal_mode is \(mode ?? "unknown")). "
                    + "Put the data directory on a local file system.", sql: "PRAGMA journal_mode = WAL")
        }
        try database.execute("PRAGMA synchronous = \(durability == .full ? "FULL" : "NORMAL")")
        database.keepWALFile()
        database.trackWALLength()
        if quickCheck, let failure = OpenCheck.quickCheck(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        {
            throw failure
        }
        // What a killed process left in the WAL is copied back now, before the first command rather
        // than inline in its commit (nothing to copy costs nothing; a failure leaves it to the
        // checkpoints that follow). Before anything writes to the WAL, so its count of frames is what
        // SQLite's recovery kept, and the commits it dropped after a damaged frame are still there to
        // be found (a migration would write over them).
        let keptFrames = try? database.checkpointPassive().walFrames
        if !lookedForWALDamage {
            lookedForWALDamage = true
            if let keptFrames, keptFrames >= 0,
                var damage = WALDamage.find(walPath: path + "-wal", validFrames: Int(keptFrames))
            {
                damage.keepCopy(of: path + "-wal")
                walDamage = damage
            }
        }
        let started = ContinuousClock.now
        let found = try Schema.migrate(database)
        let migrated = found != 0 && found < Schema.currentVersion
        if migrated {
            migration = SchemaMigration(from: found, to: Schema.currentVersion, took: ContinuousClock.now - started)
            // What the migration wrote (dropping an index rewrites its pages into the WAL: as large as
            // the index) is copied back, and the WAL cut back to nothing (then preallocated as usual):
            // the store keeps its WAL file's length, which a migration's hundreds of megabytes would
            // otherwise hold for good.
            _ = try? database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        // Once, at the store's open: a reopen after a fault runs on the committer's thread, where
        // megabytes of zeros and a sync would hold up the commits that recover (and, after a full
        // disk, fill it again).
        if !preallocated {
            preallocated = true
            preallocateWAL(database)
        }
        let connection = try Connection(database: database)
        self.connection = connection
        lastSeq = try database.scalarInt("SELECT MAX(seq) FROM events")
        numbering.forgetRevisions()
        schedule.connectionOpened()
    }

    /// What the first `open` migrated in an existing file, if anything.
    private(set) var migration: SchemaMigration?
    /// Commits the first `open` found dropped from the WAL after a damaged frame (`WALDamage`).
    private(set) var walDamage: WALDamage?
    private var lookedForWALDamage = false

    /// Whether `open` has extended the WAL already (`preallocateWAL`).
    private var preallocated = false

    /// Extends a short WAL to the length it reaches before it restarts (plus half a pass of frames
    /// committed while the remainder is copied), so that a new log's first commits overwrite rather
    /// than extend the file. A failure is no fault of the log: the WAL then grows as it commits.
    ///
    /// Done holding SQLite's write lock (`BEGIN IMMEDIATE`, rolled back): the writer lock keeps other
    /// segued and imports out, not an operator's `sqlite3` shell, whose frames past the end must
    /// not meet our zeros. A failure (a full disk, a WAL this process may not write) is not reported:
    /// the WAL then grows as it commits, as SQLite grows it anyway.
    private func preallocateWAL(_ database: Database) {
        guard let pageSize = try? database.scalarInt("PRAGMA page_size"), pageSize > 0 else { return }
        let frames = checkpointer.restartAt + checkpointer.threshold / 2
        let length = WALPreallocation.length(frames: frames, pageSize: Int(pageSize))
        guard (try? database.execute("BEGIN IMMEDIATE")) != nil else { return }
        defer { database.rollbackQuietly() }
        _ = try? WALPreallocation.extend(path + "-wal", to: length)
    }

    /// The live connection, reopened if a fault poisoned the previous one.
    func liveConnection() throws(StoreError) -> Connection {
        if let connection { return connection }
        try open(quickCheck: true)
        return connection!
    }

    /// Stops the background checkpoints, then closes the connection (the last connection of the
    /// store to close checkpoints what is left).
    func close() {
        checkpointer.stop()
        // An empty log gives back the WAL's preallocated zeros (`preallocateWAL`): a data dir that
        // never got an event, from a daemon that ran idle or failed to start, stays a few kilobytes.
        // The next open preallocates again.
        if let connection {
            if lastSeq == 0 {
                _ = try? connection.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            } else {
                Self.restartWAL(connection.database)
            }
        }
        connection = nil
    }

    /// Copies the WAL back and starts it over, so that the next open finds one frame in it rather
    /// than every frame since the last restart. The kept file's frames stay valid until a write
    /// restarts it: the next open's recovery reads each of them into its index and forgets that they
    /// were copied, and `open`'s checkpoint copies them all again (3,700 frames, 50 ms of a 80 ms
    /// start-up). A write once everything is copied begins at frame 1 under a new salt, which ends
    /// recovery there; rewriting `user_version` with its own value is that write. When another
    /// connection still reads, nothing is restarted and the next open copies as before.
    private static func restartWAL(_ database: Database) {
        guard let done = try? database.checkpointPassive(), !done.busy, done.walFrames > 1,
            done.copied == done.walFrames, let version = try? database.scalarInt("PRAGMA user_version")
        else { return }
        _ = try? database.execute("PRAGMA user_version = \(version)")
    }

    /// Runs `body` on the write connection; used for snapshots, imports and test fault injection.
    func withDatabase<T>(_ body: (Database) throws(StoreError) -> T) throws(StoreError) -> T {
        try body(liveConnection().database)
    }

    /// A transaction other than an append (snapshots, leases) committed on the write connection: the
    /// WAL's checkpoint decision is due as after an append, for `EventStore.checkpointIfDue`.
    func committedBesideAppends() {
        checkpointer.checkDue.store(true, ordering: .releasing)
    }

    // MARK: Committing

    /// Commits `units` in one transaction and returns one result per unit, in order.
    func commit(_ units: [AppendUnit]) -> [Result<Void, StoreError>] { commit(units[...]) }

    /// Commits a slice of the committer's queue, without copying it out.
    func commit(_ units: ArraySlice<AppendUnit>) -> [Result<Void, StoreError>] {
        var results: [Result<Void, StoreError>] = []
        results.reserveCapacity(units.count)
        let connection: Connection
        do throws(StoreError) {
            connection = try liveConnection()
        } catch {
            return units.map { _ in .failure(error) }
        }
        runDueCheckpoint()
        var seq = lastSeq
        var accepted = false
        numbering.beginBatch()
        do throws(StoreError) {
            try connection.begin.run()
            for unit in units {
                if let rejection = try append(unit, after: &seq, connection) {
                    results.append(.failure(rejection))
                    continue
                }
                accepted = true
                results.append(.success(()))
            }
            try rows.flush(connection)
            try connection.commit.run()
        } catch {
            // Never retry a failed commit in place (fsyncgate): fail every unit of the batch, let the
            // callers renumber from the log's real end.
            connection.database.rollbackQuietly()
            recover(after: error)
            var failed = results.map { result in
                if case .failure = result { return result }
                return .failure(error)
            }
            while failed.count < units.count { failed.append(.failure(error)) }
            return failed
        }
        lastSeq = seq
        numbering.committed(accepted: accepted)
        checkpointer.checkDue.store(true, ordering: .releasing)
        return results
    }

    /// Writes `unit` in the open transaction after `seq` (moved to its last event), or returns why
    /// it does not continue the log, or is a retried command id, with nothing of it written.
    func append(_ unit: AppendUnit, after seq: inout Int64, _ connection: Connection) throws(StoreError) -> StoreError?
    {
        let check = try numbering.check(unit, after: seq) { navigator throws(StoreError) in
            try lastRevision(of: navigator, connection)
        }
        if let rejection = check { return rejection }
        let last = unit.events.last?.seq ?? seq
        // The commands row goes first: its primary key is the duplicate check, so a retried
        // command id fails here with nothing of its unit written (SQLite undoes just the
        // failed statement, the transaction goes on).
        if let id = unit.commandID, let duplicate = try insertCommand(id, of: unit, lastSeq: last, connection) {
            return duplicate
        }
        try rows.queue(unit.events, encoded: unit.encoded, connection)
        // Revisions are updated in place; a failed batch clears them (`recover`).
        numbering.accept()
        seq = last
        return nil
    }

    // MARK: Checkpoints

    /// Runs the checkpoint decision the last commit left due, and whatever copy it calls for, here.
    /// Not part of `commit`: a catch-up costs two syncs and the backstop may wait for a pass, and
    /// neither may hold back the replies of a batch that is already durable. The
    /// committer thread runs it after firing a batch's completions, and the next commit before its
    /// own work if nobody else did. The daemon's loop takes the decision instead
    /// (`takeDueCheckpoint`) and leaves the copy to the committer thread.
    func runDueCheckpoint() {
        performCheckpoint(takeDueCheckpoint())
    }

    /// Takes the decision the last commit left due, without copying anything: cheap, so a caller
    /// that must not wait for syncs (the daemon's frame loop) can take it and hand the copy to the
    /// committer thread (`performCheckpoint` there).
    func takeDueCheckpoint() -> WALCheckpointSchedule.Copy {
        guard checkpointer.checkDue.exchange(false, ordering: .acquiring), let connection else { return .none }
        return schedule.decide(frames: connection.database.walFrames, checkpointer)
    }

    /// Copies what `takeDueCheckpoint` asked for, on the write connection.
    func performCheckpoint(_ copy: WALCheckpointSchedule.Copy) {
        guard let connection else { return }
        if copy != .none { beforeCopyForTesting?(copy) }
        switch copy {
        case .none: break
        case .catchUp: checkpointInline(connection.database, counting: checkpointer.catchUps)
        case .forced:
            // The background is far behind (slow syncs while commits pour in) or a reader pins old
            // frames: wait for a running pass, then copy the rest here, making the writer (and so the
            // next batch, never this one's replies) wait as SQLite's own checkpoint would have made
            // this commit wait. That bounds the WAL at about `limit` frames. With a pinned reader
            // there is nothing to copy and this costs next to nothing.
            checkpointer.waitUntilIdle()
            checkpointInline(connection.database, counting: checkpointer.forced)
        }
    }

    /// A PASSIVE checkpoint on the write connection. A failure fails no commit (the events are in the
    /// WAL, which stays until a checkpoint succeeds); it is counted for `stats`.
    private func checkpointInline(_ database: Database, counting counter: borrowing Atomic<Int>) {
        do throws(StoreError) {
            if try !database.checkpointPassive().busy { counter.add(1, ordering: .relaxed) }
        } catch {
            checkpointer.failures.add(1, ordering: .relaxed)
        }
    }

    /// Events accepted but not yet inserted, for multi-row INSERTs.
    private var rows = EventRows()

    /// The navigator's last stored revision, read from the file (`numbering` caches it).
    private func lastRevision(of navigator: String, _ connection: Connection) throws(StoreError) -> Int64 {
        let statement = connection.lastRevision
        statement.bind(navigator, at: 1)
        defer { statement.reset() }
        _ = try statement.step()
        return statement.int64(at: 0)
    }

    /// The command stored under `id`, read through the write connection; nil when the connection is
    /// down after a fault (the caller then asks the read connection).
    func command(_ id: String) -> Result<StoredCommand?, StoreError>? {
        guard let connection else { return nil }
        let statement = connection.selectCommand
        statement.bind(id, at: 1)
        defer { statement.reset() }
        do throws(StoreError) {
            guard try statement.step() else { return .success(nil) }
            return .success(try StoredCommand(statement))
        } catch {
            return .failure(error)
        }
    }

    /// `SQLITE_CONSTRAINT_PRIMARYKEY`, a macro Swift does not import.
    static let constraintPrimaryKey = SQLITE_CONSTRAINT | (6 << 8)

    /// Inserts the unit's commands row; returns the duplicate-command rejection when `id` is already
    /// stored (by an earlier commit or earlier in this batch), and throws any other failure.
    private func insertCommand(_ id: String, of unit: AppendUnit, lastSeq: Int64, _ connection: Connection)
        throws(StoreError) -> StoreError?
    {
        try insertCommand(
            CommandRecord(
                id: id, navigator: unit.navigator, seq: unit.events.isEmpty ? nil : lastSeq, reply: unit.reply,
                fingerprint: unit.fingerprint), connection)
    }

    /// Stores `record` as it is, or returns the refusal of an id already stored.
    private func insertCommand(_ record: CommandRecord, _ connection: Connection) throws(StoreError) -> StoreError? {
        let id = record.id
        let insert = connection.insertCommand
        insert.bind(id, at: 1)
        insert.bind(record.navigator, at: 2)
        insert.bind(record.seq, at: 3)
        insert.bind(record.reply.map(StoreJSON.encode), at: 4)
        insert.bind(record.fingerprint.map { Int64(bitPattern: $0) }, at: 5)
        do throws(StoreError) {
            try insert.run()
        } catch  where error.extendedCode == Self.constraintPrimaryKey {
            return StoreError(
                kind: .duplicateCommand,
                message: "Command id \"\(id)\" was already applied; its stored reply answers the retry.")
        }
        return nil
    }

    /// After a failed batch: drop a connection that saw an I/O fault, and re-read where the log ends.
    private func recover(after error: StoreError) {
        rows.removeAll()
        numbering.failed(error)
        if error.poisonsConnection { connection = nil }
        if let database = try? liveConnection().database,
            let last = try? database.scalarInt("SELECT MAX(seq) FROM events")
        {
            lastSeq = last
        }
    }

    // MARK: Importing

    /// An import's one transaction, part after part (`LogImport`): the seq its units reached.
    private var importSeq: Int64?

    func lastRevision(of navigator: String) throws(StoreError) -> Int64 {
        try lastRevision(of: navigator, liveConnection())
    }

    func beginImport() throws(StoreError) {
        try liveConnection().begin.run()
        numbering.beginBatch()
        importSeq = lastSeq
    }

    func appendImportPart(_ units: [AppendUnit]) throws(StoreError) {
        guard var seq = importSeq, let connection else { preconditionFailure("appendImportPart outside an import") }
        do throws(StoreError) {
            for unit in units {
                if let rejection = try append(unit, after: &seq, connection) { throw rejection }
            }
            try rows.flush(connection)
        } catch {
            failImport(error)
            throw error
        }
        importSeq = seq
    }

    func appendImportCommands(_ records: [CommandRecord]) throws(StoreError) {
        guard importSeq != nil, let connection else { preconditionFailure("appendImportCommands outside an import") }
        do throws(StoreError) {
            for record in records where try insertCommand(record, connection) != nil {
                throw StoreError(
                    kind: .duplicateCommand,
                    message: "Command id \"\(record.id)\" appears twice, or the log holds it already.")
            }
        } catch {
            failImport(error)
            throw error
        }
    }

    func commandsSharingASeq() throws(StoreError) -> (seq: Int64, ids: (String, String))? {
        guard let connection else { preconditionFailure("commandsSharingASeq outside an import") }
        let statement = try connection.database.prepare(
            "SELECT seq, MIN(id), MAX(id) FROM commands WHERE seq IS NOT NULL GROUP BY seq HAVING COUNT(*) > 1 "
                + "ORDER BY seq LIMIT 1")
        guard try statement.step() else { return nil }
        return (statement.int64(at: 0), (statement.text(at: 1) ?? "", statement.text(at: 2) ?? ""))
    }

    func commitImport() throws(StoreError) {
        guard let seq = importSeq, let connection else { preconditionFailure("commitImport outside an import") }
        do throws(StoreError) {
            try connection.commit.run()
        } catch {
            failImport(error)
            throw error
        }
        importSeq = nil
        lastSeq = seq
        numbering.committed(accepted: true)
        checkpointer.checkDue.store(true, ordering: .releasing)
    }

    func rollbackImport() {
        guard importSeq != nil else { return }
        failImport(StoreError(kind: .invalidData, message: "The import was abandoned."))
    }

    /// Rolls the import's transaction back (a failed part leaves it open) and re-reads the log's end.
    private func failImport(_ error: StoreError) {
        importSeq = nil
        connection?.database.rollbackQuietly()
        recover(after: error)
    }
}

@available(*, unavailable)
extension LogWriter: Sendable {}

extension LogWriter: BatchWriter {
    var upkeepDue: Bool { checkpointer.checkDue.load(ordering: .relaxed) }

    func takeDueUpkeep() -> (() -> Void)? {
        let copy = takeDueCheckpoint()
        return copy == .none ? nil : { [self] in performCheckpoint(copy) }
    }

    func runDueUpkeep() { runDueCheckpoint() }
}
