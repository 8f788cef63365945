import Foundation
import SegueCore
import Synchronization

/// The durable, append-only event log of every navigator (docs/design.md, "The store").
///
/// Two connections in WAL mode: the group committer's thread owns the write connection, and reads go
/// through a separate read connection, so history and state queries keep working while the writer
/// is failing (disk full, I/O errors) or busy with a large batch. The store knows nothing about
/// navigation: callers number events, fold them into state and hand snapshots in as JSON.
package final class EventStore: @unchecked Sendable {
    package let path: String
    package let durability: Durability
    let committer: GroupCommitter<LogWriter>
    /// Guards `reader`: one read connection shared by all reading threads.
    private let readLock = NSLock()
    private let reader: LogReader
    /// The check `init` deferred, until `startDeferredCheck` takes it.
    private let deferredCheck: Mutex<OpenCheck?>
    /// The schema migration this open ran on an existing file (after an upgrade), for the log.
    package let migration: SchemaMigration?
    /// Commits SQLite's recovery dropped at this open, after a damaged frame of the WAL, for the log.
    package let walDamage: WALDamage?
    /// Held from open to `close`: one appending process per log.
    private var writerLock: WriterLock?
    /// The `busyTimeout` of `init`, as SQLite takes it (`sqlite3_busy_timeout`): every connection
    /// of the store waits this long for a lock.
    let busyTimeoutMilliseconds: Int32

    /// Opens (creating if needed) the store at `path`: WAL mode, `synchronous` for `durability`,
    /// `PRAGMA quick_check` (before returning, or in the background: see `OpenCheck`), then schema
    /// migrations.
    ///
    /// - Parameter busyTimeout: how long an append waits for a lock held by another process (for
    ///   example an operator's `sqlite3` shell in a write transaction) before failing `unavailable`.
    /// - Parameter checkpointThreshold: the WAL length (pages) at which a background checkpoint
    ///   starts (`WALCheckpointer`); tests lower it to see checkpoints without writing megabytes.
    package init(
        path: String, durability: Durability = .full, check: OpenCheck = .quick, busyTimeout: Duration = .seconds(2),
        checkpointThreshold: Int32 = EventStore.defaultCheckpointThreshold
    ) throws(StoreError) {
        self.path = path
        self.durability = durability
        let milliseconds =
            busyTimeout.components.seconds * 1000 + busyTimeout.components.attoseconds / 1_000_000_000_000_000
        busyTimeoutMilliseconds = Int32(clamping: milliseconds)
        writerLock = try WriterLock(logPath: path)
        let writer = LogWriter(
            path: path, durability: durability, busyTimeoutMilliseconds: busyTimeoutMilliseconds,
            checkpointThreshold: checkpointThreshold)
        try writer.open(quickCheck: check.checksBeforeOpen)
        migration = writer.migration
        walDamage = writer.walDamage
        reader = try LogReader(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        committer = GroupCommitter(writer: writer)
        deferredCheck = Mutex(check.checksBeforeOpen ? nil : check)
    }

    /// Starts the deferred check (`OpenCheck.deferred`), once. Not at open: the check reads every
    /// page of the file, and beside a daemon's start-up (on two cores, even at nice 19) it made
    /// the first reply on a 10-million-event log ~20 % later than on a small one.
    package func startDeferredCheck(then: @escaping @Sendable (Bool) -> Void) {
        let check = deferredCheck.withLock { check in
            defer { check = nil }
            return check
        }
        guard let check else { return then(true) }
        check.startDeferred(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds, then: then)
    }

    /// WAL pages at which a background checkpoint starts: SQLite's own `wal_autocheckpoint` default.
    package static let defaultCheckpointThreshold: Int32 = 1000

    /// Same as `init(path:durability:)`, under the name the daemon reads best.
    package static func open(path: String, durability: Durability = .full, check: OpenCheck = .quick) throws(StoreError)
        -> EventStore
    {
        try EventStore(path: path, durability: durability, check: check)
    }

    deinit { committer.close() }

    // MARK: Appending

    /// Queues `unit` for the next group commit; `completion` fires after COMMIT returned (or the batch
    /// failed), on the committer thread, and must not block.
    package func submit(_ unit: AppendUnit, completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        committer.submit(unit, completion: completion)
    }

    /// Commits `units` (in order, one transaction) on the calling thread when the writer is idle
    /// (`GroupCommitter.commitIfIdle`); `.notRun` when a group commit or other writer work is under
    /// way, in which case the caller `submit`s them. Saves the two thread hand-offs of `submit` for a
    /// caller that gathers its own batches.
    package func commitIfIdle(_ units: [AppendUnit], later: () -> BatchCompletion) -> InlineCommit {
        committer.commitIfIdle(units, later: later)
    }

    /// Decides about WAL checkpoints after an inline commit (`commitIfIdle`), once its replies are
    /// out: asks for a background pass, or has the committer thread copy a remainder so the WAL can
    /// restart (two syncs) or run the backstop past the WAL's limit; neither delays the caller nor
    /// the acknowledgement of what is already durable. Cheap; skipped while the writer is busy (then
    /// its thread decides). A caller that never calls it loses nothing: the next commit decides first.
    package func checkpointIfDue() { committer.checkpointIfIdle() }

    /// Returns once everything submitted before the call is stored or failed.
    package func flush() { committer.flush() }

    /// One writer: no turns to give back.
    package func yieldLogTurn() {}

    /// Gives up the writer lock and nothing else, as a killed process would: tests open a second
    /// store on a log the first one still holds, to see what a successor finds.
    func abandonWriterLockForTesting() { writerLock = nil }

    /// Drains pending appends, then closes the write connection and gives up the writer lock; later
    /// appends fail with `.closed`. Reads keep working until the store is released.
    package func close() {
        committer.close()
        writerLock = nil
    }

    // MARK: Reading

    /// The last committed seq (0 for an empty log). Appends must number from `lastSeq + 1`.
    package var lastSeq: Int64 { committer.committedSeq.load(ordering: .acquiring) }

    /// The navigator's last committed revision (0 if it has no events): the `expect` check.
    package func lastRevision(of navigator: String) throws(StoreError) -> Int64 {
        try read { reader throws(StoreError) in try reader.lastRevision(of: navigator) }
    }

    /// The reply and request fingerprint of an already applied command id; nil if never seen.
    ///
    /// Asked of the write connection while it is idle: its page cache is always current, whereas the
    /// read connection's is invalidated by every commit and re-reads the pages it needs. The daemon
    /// looks up every new command id here: 16 µs against 24 µs per command on the development machine.
    package func command(_ id: String) throws(StoreError) -> StoredCommand? {
        if let result = committer.withWriterIfIdle({ writer in writer.command(id) }) ?? nil {
            return try result.get()
        }
        return try read { reader throws(StoreError) in try reader.command(id) }
    }

    /// Up to `limit` events with seq above `seq`, in seq order, optionally of one navigator.
    package func events(after seq: Int64, navigator: String? = nil, limit: Int = .max) throws(StoreError)
        -> [EventRecord]
    {
        try read { reader throws(StoreError) in try reader.events(after: seq, navigator: navigator, limit: limit) }
    }

    /// The navigator's events with seq in `(after, upTo]`: the tail to fold onto a snapshot.
    package func events(of navigator: String, after seq: Int64, upTo last: Int64) throws(StoreError) -> [EventRecord] {
        try read { reader throws(StoreError) in try reader.events(of: navigator, after: seq, upTo: last) }
    }

    /// Every navigator that has at least one event, in name order.
    package func navigators() throws(StoreError) -> [String] {
        try read { reader throws(StoreError) in try reader.navigators() }
    }

    /// Calls `body` with every event after `seq` in seq order without building an array: how the
    /// daemon rebuilds state and how export streams the log.
    package func commandRecords(after id: String?, limit: Int) throws(StoreError) -> [CommandRecord] {
        try read { reader throws(StoreError) in try reader.commandRecords(after: id, limit: limit) }
    }

    package func forEachEvent(after seq: Int64 = 0, _ body: (EventRecord) throws(StoreError) -> Void) throws(StoreError)
    {
        try read { reader throws(StoreError) in try reader.forEachEvent(after: seq, body) }
    }

    // MARK: Snapshots

    /// The newest snapshot of every navigator that has one.
    package func latestSnapshots() throws(StoreError) -> [Snapshot] {
        try read { reader throws(StoreError) in try reader.latestSnapshots() }
    }

    /// A read connection of its own, beside the shared one (`PastReading`).
    package func pastReader() throws(StoreError) -> any PastReading {
        try LogReader(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
    }

    /// The newest snapshot of `navigator` taken at or before `seq`: the start of a time-travel fold.
    package func snapshot(of navigator: String, atOrBefore seq: Int64) throws(StoreError) -> Snapshot? {
        try read { reader throws(StoreError) in try reader.snapshot(of: navigator, atOrBefore: seq) }
    }

    // MARK: Integrity

    /// Runs SQLite's full `PRAGMA integrity_check` (slow on a big log; open runs the quick check) and
    /// returns its findings, empty when the file is sound.
    package func integrityCheck() throws(StoreError) -> [String] {
        try read { reader throws(StoreError) in try reader.integrityCheck() }
    }

    // MARK: Internals

    func read<T>(_ body: (LogReader) throws(StoreError) -> T) throws(StoreError) -> T {
        readLock.lock()
        defer { readLock.unlock() }
        return try body(reader)
    }

    /// Runs `body` on the committer thread with the write connection, ordered after prior appends.
    func withWriter<T>(_ body: @escaping (LogWriter) throws(StoreError) -> T) throws(StoreError) -> T {
        try committer.perform(body)
    }

    /// How the WAL has been checkpointed since open (`stats.store.walCheckpoints`).
    package var walCheckpoints: WALCheckpointCounts {
        let checkpointer = committer.checkpointer
        return WALCheckpointCounts(
            background: checkpointer.background.load(ordering: .relaxed),
            catchUps: checkpointer.catchUps.load(ordering: .relaxed),
            forced: checkpointer.forced.load(ordering: .relaxed),
            failures: checkpointer.failures.load(ordering: .relaxed),
            restarts: checkpointer.restarts.load(ordering: .relaxed))
    }

    /// Append transactions run so far (for the benchmark's units-per-commit figure).
    package var commitCount: Int { committer.commits.load(ordering: .relaxed) }

    /// Fault injection for tests: caps the file at `pages` pages (`PRAGMA max_page_count`), which makes
    /// appends fail with `SQLITE_FULL` exactly as a full disk does. Returns the cap SQLite applied.
    @discardableResult
    func setMaxPageCount(_ pages: Int64) throws(StoreError) -> Int64 {
        try withWriter { writer throws(StoreError) in
            try writer.withDatabase { database throws(StoreError) in
                try database.scalarInt("PRAGMA max_page_count = \(pages)")
            }
        }
    }

    /// The number of pages the file has now: tests size a cap from it.
    func pageCount() throws(StoreError) -> Int64 {
        try withWriter { writer throws(StoreError) in
            try writer.withDatabase { database throws(StoreError) in try database.scalarInt("PRAGMA page_count") }
        }
    }
}
