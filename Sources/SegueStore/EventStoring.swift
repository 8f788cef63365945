import Dispatch
import SegueCore

/// Which kind of database keeps a log: the `kind` of the daemon's `store` setting.
package enum StoreKind: String, Sendable, CaseIterable {
    /// One file in the data directory (`EventStore`): the embedded default.
    case sqlite
    /// A PostgreSQL database (`PostgresEventStore` in SeguePostgres).
    case postgres
}

/// The durable, append-only event log as the daemon and the tools use it, whichever database keeps
/// it (docs/design.md, "The store").
///
/// Every backend makes the same promises: `seq` gapless from 1 and `revision` gapless per
/// navigator, checked (never assigned: the fleet numbers events because it publishes them) and
/// enforced by unique keys; a unit's events, command id and reply committed together or not at all;
/// nothing acknowledged that is not committed, at the durability asked for; command ids unique across
/// restarts; the same `StoreError` kinds, and so the same wire codes, for the same faults.
///
/// The requirements are `EventStore`'s methods under their names and signatures, so a caller moves
/// from the SQLite store to `any EventStoring` by changing a type name. Maintenance that only one
/// backend does in-process (SQLite's WAL checkpoints, which PostgreSQL's server runs itself) keeps its
/// place with a default that does nothing and counts nothing, rather than a refinement callers would
/// have to cast to: a daemon calls `checkpointIfDue()` after every inline commit, whichever the backend.
package protocol EventStoring: AnyObject, Sendable, EventSequence, CommandSequence {
    /// What `commandIDs()` returns: a walk over every stored command id on a connection of its own.
    associatedtype CommandIDs: CommandIDWalking

    var kind: StoreKind { get }
    /// Where the log is, for messages: a file path, or a conninfo without secrets.
    var location: String { get }
    var durability: Durability { get }

    // MARK: Appending

    /// Queues `unit` for the next group commit; `completion` fires after COMMIT returned (or the batch
    /// failed), on the committer thread, and must not block.
    func submit(_ unit: AppendUnit, completion: @escaping @Sendable (Result<Void, StoreError>) -> Void)
    /// Commits `units` in one transaction on the calling thread when the writer is idle; `.notRun`
    /// when it is busy or must connect first (then `submit` them); `.handedOff` when the server was
    /// slow to answer and the committer thread waits for it, calling the handler `later` makes with
    /// the results (`GroupCommitter.commitIfIdle`).
    func commitIfIdle(_ units: [AppendUnit], later: () -> BatchCompletion) -> InlineCommit
    /// Runs the maintenance an inline commit left due without delaying the caller (SQLite: WAL
    /// checkpoints). A no-op where the database server maintains its own log.
    func checkpointIfDue()
    /// Appends `unit` and waits until it is stored (or failed).
    func append(_ unit: AppendUnit) throws(StoreError)
    /// Returns once everything submitted before the call is stored or failed.
    func flush()
    /// After an append that lost the race to another daemon on a shared log and what followed it:
    /// gives back the turn the writer may have taken (`PostgresLogWriter+Turn`), on the committer
    /// thread, after everything submitted before. A no-op for a log with one writer.
    func yieldLogTurn()
    /// Drains pending appends and closes the writer; later appends fail with `.closed`.
    func close()

    // MARK: Reading

    /// The last committed seq (0 for an empty log). Appends must number from `lastSeq + 1`.
    var lastSeq: Int64 { get }
    func lastRevision(of navigator: String) throws(StoreError) -> Int64
    /// The stored reply of an already applied command id, across restarts; nil if never seen.
    func reply(forCommand id: String) throws(StoreError) -> JSON?
    /// The reply and request fingerprint of an already applied command id; nil if never seen.
    func command(_ id: String) throws(StoreError) -> StoredCommand?
    /// Up to `limit` events with seq above `seq`, in seq order, optionally of one navigator.
    func events(after seq: Int64, navigator: String?, limit: Int) throws(StoreError) -> [EventRecord]
    /// The navigator's events with seq in `(after, upTo]`: the tail to fold onto a snapshot.
    func events(of navigator: String, after seq: Int64, upTo last: Int64) throws(StoreError) -> [EventRecord]
    /// Every navigator that has at least one event, in name order.
    func navigators() throws(StoreError) -> [String]

    // MARK: Snapshots

    func saveSnapshot(navigator: String, seq: Int64, revision: Int64, state: JSON) throws(StoreError)
    /// Saves several snapshots in one transaction: a checkpoint is all of them or none. With
    /// `thinning`, the snapshots of those navigators that it judges are deleted in the same
    /// transaction.
    func saveSnapshots(_ snapshots: [Snapshot], thinning: SnapshotThinning?) throws(StoreError)
    /// Judges the next `rows` snapshot rows of a pass over those no checkpoint judged
    /// (`SnapshotBacklog`), deleting what it drops, in one transaction; marks it done when no row is
    /// left. On failure the pass stays where it was.
    func thin(_ backlog: inout SnapshotBacklog, rows: Int) throws(StoreError)
    /// Whether this store's role may delete snapshots (PostgreSQL's grants); without it nothing is
    /// thinned.
    func mayThinSnapshots() throws(StoreError) -> Bool
    /// Raises the lease rows of `shards` (nil: the whole log's, `FrameLeaseRows`) to `frame`, in one
    /// transaction, created as needed. A row already past `frame` stays: it is never lowered, so a
    /// daemon that lost a shard cannot take back the lease its successor relies on. With several
    /// daemons, the write is fenced as appends are, by the epoch the daemon leads each shard under:
    /// refused whole (`SQLState.fenced`) unless each is still the stored one, so a leader that lost
    /// a shard cannot lease frames its successor already read past.
    func raiseLease(shards: [Int: Int64]?, to frame: Int64) throws(StoreError)
    /// Lowers to `frame` the lease rows of `shards` that still hold `from` (a graceful stop gives back
    /// the rest of its lease); a row another daemon raised since stays. Fenced by shard: the rows of
    /// the shards still led are lowered, and `SQLState.fenced` names the others.
    func lowerLease(shards: [Int: Int64]?, from: Int64, to frame: Int64) throws(StoreError)
    /// The newest snapshot of every navigator that has one, in navigator order.
    func latestSnapshots() throws(StoreError) -> [Snapshot]
    /// The newest snapshot of `navigator` taken at or before `seq`.
    func snapshot(of navigator: String, atOrBefore seq: Int64) throws(StoreError) -> Snapshot?
    /// A reader of the past on a connection of its own (`PastReading`), for one thread at a time.
    func pastReader() throws(StoreError) -> any PastReading

    // MARK: Integrity, ids, import

    /// The database's own check of the log, findings as sentences; empty when it is sound.
    func integrityCheck() throws(StoreError) -> [String]
    func commandIDs() throws(StoreError) -> CommandIDs
    /// Appends the events of a JSON Lines export, and `commands` with them (another log's rows, as
    /// `segue migrate` copies them), all or none, in one transaction; returns the count of events.
    /// Both are read a part at a time (`LogImport`); `progress` is told the count of events appended
    /// so far after each part.
    @discardableResult func importJSONLines(
        from path: String, commands: any CommandSequence, progress: @escaping (Int) -> Void
    ) throws(StoreError) -> Int

    /// How the store checkpointed its WAL since open, for `stats`; all zeros where the database
    /// server checkpoints its own log (`kind` tells which).
    var walCheckpoints: WALCheckpointCounts { get }

    /// Starts the check of the whole log that the open deferred (SQLite's `OpenCheck.deferred`), once
    /// the owner has started; nothing where there is none. `then` is told whether the log is sound
    /// when the check ends (at once where there is none, or it was started already): bulk upkeep
    /// waits for it, since the check's read holds the WAL from restarting until it ends.
    func startDeferredCheck(then: @escaping @Sendable (Bool) -> Void)

    /// From now on, the reads above wait at most `answerTimeout` for a database server that does not
    /// answer, and fail `unavailable` instead: the daemon's frame loop reads through them. Nothing
    /// where reads are local (SQLite).
    func limitReadWaits(to answerTimeout: Duration)
    /// From now on, `commitIfIdle` hands the wait for a server silent for `wait` to the committer
    /// thread. Nothing where commits are local (SQLite).
    func limitInlineCommitWaits(to wait: Duration)
}

extension EventStoring {
    /// Saves a checkpoint's snapshots, deleting none.
    package func saveSnapshots(_ snapshots: [Snapshot]) throws(StoreError) {
        try saveSnapshots(snapshots, thinning: nil)
    }

    package func checkpointIfDue() {}

    package func limitReadWaits(to answerTimeout: Duration) {}

    package func limitInlineCommitWaits(to wait: Duration) {}

    /// `commitIfIdle` for a caller that can wait: results now, or nil when the writer was busy (then
    /// `submit` them). A commit handed to the committer thread is waited for.
    package func commitIfIdle(_ units: [AppendUnit]) -> [Result<Void, StoreError>]? {
        let handedOff = HandedOffResults()
        switch commitIfIdle(units, later: { handedOff.deliver }) {
        case .done(let results): return results
        case .notRun: return nil
        case .handedOff: return handedOff.wait()
        }
    }

    package func mayThinSnapshots() throws(StoreError) -> Bool { true }

    package func startDeferredCheck(then: @escaping @Sendable (Bool) -> Void) { then(true) }

    package func startDeferredCheck() { startDeferredCheck(then: { _ in }) }

    package var walCheckpoints: WALCheckpointCounts {
        WALCheckpointCounts(background: 0, catchUps: 0, forced: 0, failures: 0, restarts: 0)
    }

    package func reply(forCommand id: String) throws(StoreError) -> JSON? { try command(id)?.reply }

    /// Appends the events of a JSON Lines export, and `commands` with them, all or none; returns the
    /// count.
    @discardableResult
    package func importJSONLines(from path: String, commands: [CommandRecord] = []) throws(StoreError) -> Int {
        try importJSONLines(from: path, commands: commands, progress: { _ in })
    }

    /// `submit` for callers that can block: waits until `unit` is stored (or failed).
    package func append(_ unit: AppendUnit) throws(StoreError) {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: Result<Void, StoreError> = .success(())
        submit(unit) { result in
            outcome = result
            done.signal()
        }
        done.wait()
        try outcome.get()
    }

    /// Saves `state`, the caller's fold of `navigator` up to `seq` (its `revision`).
    package func saveSnapshot(navigator: String, seq: Int64, revision: Int64, state: JSON) throws(StoreError) {
        try saveSnapshots([Snapshot(navigator: navigator, seq: seq, revision: revision, state: state)])
    }
}

/// A walk over every stored command id, in bytewise order, a page per read transaction (see
/// `CommandIDReader`): how the daemon builds its filter of known ids at start.
package protocol CommandIDWalking {
    /// Calls `body` with the UTF-8 bytes of every stored id (valid during the call only), `pageSize`
    /// per read, while `body` returns true. Returns false when `body` stopped the walk.
    @discardableResult
    func walk(pageSize: Int, _ body: (UnsafeRawBufferPointer) -> Bool) throws(StoreError) -> Bool
}

extension EventStore: EventStoring {
    package var kind: StoreKind { .sqlite }
    package var location: String { path }
}

extension CommandIDReader: CommandIDWalking {}

/// The results of a commit handed to the committer thread, for a caller that waits for them.
private final class HandedOffResults: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var results: [Result<Void, StoreError>] = []

    func deliver(_ results: [Result<Void, StoreError>]) {
        self.results = results
        done.signal()
    }

    func wait() -> [Result<Void, StoreError>] {
        done.wait()
        return results
    }
}
