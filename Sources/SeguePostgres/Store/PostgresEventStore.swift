import Foundation
import SegueCore
import SegueStore

/// The event log in a PostgreSQL database, with the promises of SQLite's `EventStore` (see
/// `EventStoring`): for a log that outlives one machine, backed up and replicated by the database's
/// own tools (docs/operations.md, "Choosing a store backend").
///
/// Two sessions, like the SQLite store's two connections: the group committer's thread owns the
/// writer's (`PostgresLogWriter`: one transaction per batch, the log's writer lock, reconnection)
/// and reads go through a reader's, so history and state queries keep working while the writer
/// waits for a commit. `durability: .full` commits with `synchronous_commit = on` (acknowledged
/// once the server flushed its WAL), `.relaxed` with `off` (acknowledged before the flush: a crash
/// of the server may lose the last fraction of a second of commits, never corrupts).
package final class PostgresEventStore: EventStoring, @unchecked Sendable {
    package let settings: ConnectionSettings
    package let durability: Durability
    /// The shards this daemon leads, when several daemons share the log (nil: one writer, locked).
    package let leases: ShardLeases?
    let committer: GroupCommitter<PostgresLogWriter>
    /// The writer's count of turns taken (`PostgresLogWriter+Turn`).
    private let turns: TurnCount
    /// The schema migration this open ran on an existing database (after an upgrade), for the log.
    package let migration: SchemaMigration?
    /// Guards `reader`: one read session shared by all reading threads.
    private let readLock = NSLock()
    private let reader: PostgresLogReader

    /// Connects (retrying as `retry` says, reporting each failed attempt to `progress`, which stops
    /// the waiting by returning false), creates or migrates the schema and takes the log's writer lock
    /// (with `leases`, when several daemons share the log: shared, and every append is fenced).
    ///
    /// - Parameters:
    ///   - lockTimeout: how long an append waits for a lock held by another session (an operator's
    ///     `LOCK TABLE`) before failing `unavailable`: SQLite's busy timeout.
    ///   - willMigrate: told what the migrations that upgrade the database will do before they run
    ///     (the rewrite of version 4 takes seconds per million events).
    ///   - reconnected: told, on the committer's thread, each time the writer has a session again
    ///     after losing one, with what it read back of a batch whose commit outcome was lost.
    package init(
        settings: ConnectionSettings, durability: Durability = .full, lockTimeout: Duration = .seconds(2),
        retry: PostgresOpenRetry = .never, leases: ShardLeases? = nil,
        progress: (PostgresOpenAttempt) -> Bool = { _ in true },
        willMigrate: (PostgresSchemaUpgrade) -> Void = { _ in },
        reconnected: @escaping @Sendable (PostgresReconnection) -> Void = { _ in }
    ) throws(StoreError) {
        var settings = settings
        if leases != nil {
            // A leader cut off by the network gives up its commits within 2 s, as standbys take over.
            settings.keepaliveIdle = .seconds(1)
            settings.tcpUserTimeout = .seconds(2)
        }
        self.settings = settings
        self.durability = durability
        self.leases = leases
        let writer = PostgresLogWriter(
            settings: settings, durability: durability, lockTimeout: lockTimeout, leases: leases)
        writer.reconnected = reconnected
        try retry.run({ () throws(StoreError) in try writer.open(willMigrate: willMigrate) }, progress: progress)
        migration = writer.migration
        reader = PostgresLogReader(settings: settings)
        committer = GroupCommitter(writer: writer)
        turns = writer.turns
    }

    /// The schema version this build creates and migrates to.
    package static var currentSchemaVersion: Int64 { PostgresSchema.currentVersion }

    /// Same as `init(settings:…)` for a conninfo string or `postgresql://` URL.
    package convenience init(
        conninfo: String, durability: Durability = .full, retry: PostgresOpenRetry = .never,
        progress: (PostgresOpenAttempt) -> Bool = { _ in true }
    ) throws(StoreError) {
        let settings = try mapped("Cannot use the PostgreSQL connection string") { () throws(PostgresError) in
            try ConnectionSettings(conninfo: conninfo)
        }
        try self.init(settings: settings, durability: durability, retry: retry, progress: progress)
    }

    deinit {
        committer.close()
        reader.close()
    }

    package var kind: StoreKind { .postgres }
    package var location: String { settings.redacted }

    // MARK: Appending

    package func submit(_ unit: AppendUnit, completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        committer.submit(unit, completion: completion)
    }

    package func commitIfIdle(_ units: [AppendUnit], later: () -> BatchCompletion) -> InlineCommit {
        committer.commitIfIdle(units, later: later)
    }

    package func flush() { committer.flush() }

    /// The turns taken so far are counted now: a turn taken after this call is not given back.
    package func yieldLogTurn() {
        let taken = turns.taken.load(ordering: .acquiring)
        committer.performLater { $0.yieldTurn(taken: taken) }
    }

    /// Frees what the last inline commit kept for after its replies (`PostgresLogWriter+Retired`).
    package func checkpointIfDue() { committer.checkpointIfIdle() }

    /// Drains pending appends, then closes the writer's session (which gives up the writer lock);
    /// later appends fail with `.closed`. Reads keep working until the store is released.
    package func close() { committer.close() }

    // MARK: Reading

    package var lastSeq: Int64 { committer.committedSeq.load(ordering: .acquiring) }

    package func lastRevision(of navigator: String) throws(StoreError) -> Int64 {
        try read { reader throws(StoreError) in try reader.lastRevision(of: navigator) }
    }

    package func command(_ id: String) throws(StoreError) -> StoredCommand? {
        try read { reader throws(StoreError) in try reader.command(id) }
    }

    package func commandRecords(after id: String?, limit: Int) throws(StoreError) -> [CommandRecord] {
        try read { reader throws(StoreError) in try reader.commandRecords(after: id, limit: limit) }
    }

    package func events(after seq: Int64, navigator: String? = nil, limit: Int = .max) throws(StoreError)
        -> [EventRecord]
    {
        try read { reader throws(StoreError) in try reader.events(after: seq, navigator: navigator, limit: limit) }
    }

    package func events(of navigator: String, after seq: Int64, upTo last: Int64) throws(StoreError) -> [EventRecord] {
        try read { reader throws(StoreError) in try reader.events(of: navigator, after: seq, upTo: last) }
    }

    package func navigators() throws(StoreError) -> [String] {
        try read { reader throws(StoreError) in try reader.navigators() }
    }

    /// Whether the role may delete `snapshots` rows: without it, checkpoints are saved but older
    /// snapshots are not thinned (`SnapshotThinning`).
    package func mayThinSnapshots() throws(StoreError) -> Bool {
        try read { reader throws(StoreError) in
            try reader.withConnection { connection throws(PostgresError) in
                try PostgresPrivileges.mayDeleteSnapshots(connection)
            }
        }
    }

    package func forEachEvent(after seq: Int64 = 0, _ body: (EventRecord) throws(StoreError) -> Void) throws(StoreError)
    {
        try read { reader throws(StoreError) in try reader.forEachEvent(after: seq, body) }
    }

    package func latestSnapshots() throws(StoreError) -> [Snapshot] {
        try read { reader throws(StoreError) in try reader.latestSnapshots() }
    }

    package func snapshot(of navigator: String, atOrBefore seq: Int64) throws(StoreError) -> Snapshot? {
        try read { reader throws(StoreError) in try reader.snapshot(of: navigator, atOrBefore: seq) }
    }

    /// The log's invariants, checked by the server (`PostgresLogReader.integrityCheck`).
    package func integrityCheck() throws(StoreError) -> [String] {
        try read { reader throws(StoreError) in try reader.integrityCheck() }
    }

    /// The database's schema version (`schema_version`).
    package func schemaVersion() throws(StoreError) -> Int64 {
        try read { reader throws(StoreError) in try reader.schemaVersion() }
    }

    /// From now on, reads through the shared reader wait at most `answerTimeout` for the server and
    /// never connect on the calling thread (`BoundedReads`): the daemon's frame loop reads through
    /// it. History, exports and walks have sessions of their own and wait as long as they need.
    package func limitReadWaits(to answerTimeout: Duration) {
        readLock.lock()
        defer { readLock.unlock() }
        reader.limitWaits(to: answerTimeout)
    }

    /// From now on, an inline commit (`commitIfIdle`) leaves the wait for its answer to the
    /// committer thread once the server has been silent for `wait`.
    package func limitInlineCommitWaits(to wait: Duration) {
        let milliseconds = Int32(clamping: ConnectionSettings.milliseconds(wait))
        try? committer.perform { writer throws(StoreError) in writer.inlineAnswerWait = milliseconds }
    }

    /// A session of its own, beside the shared reader's (`PastReading`); it connects when first read.
    package func pastReader() throws(StoreError) -> any PastReading { PostgresLogReader(settings: settings) }

    /// A walk over the stored command ids on a session of its own.
    package func commandIDs() throws(StoreError) -> PostgresCommandIDReader {
        PostgresCommandIDReader(settings: settings)
    }

    /// Append transactions run so far: units per commit is the batch size (for `segue-bench`).
    package var commitCount: Int { committer.commits.load(ordering: .relaxed) }

    // MARK: Internals

    func read<T>(_ body: (PostgresLogReader) throws(StoreError) -> T) throws(StoreError) -> T {
        readLock.lock()
        defer { readLock.unlock() }
        return try body(reader)
    }

    /// Runs `body` on the committer thread with the writer, ordered after prior appends.
    func withWriter<T>(_ body: @escaping (PostgresLogWriter) throws(StoreError) -> T) throws(StoreError) -> T {
        try committer.perform(body)
    }
}
