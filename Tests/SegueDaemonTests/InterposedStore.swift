import Foundation
import SegueCore
import SegueStore

/// A real store with a test between it and the engine on the two commit paths, so that an `Engine`
/// test can line up what the committer thread and the loop's own commits would race to do.
///
/// Everything else goes straight to `base`. With no script set, so do the commit paths.
final class InterposedStore<Base: EventStoring>: EventStoring, @unchecked Sendable {
    typealias Completion = @Sendable (Result<Void, StoreError>) -> Void

    /// What the commit paths do, in turn.
    enum Script {
        case passThrough
        /// The next inline commit is declined, so the engine submits its units: they are stored at
        /// once, their completions held (`held` is signalled) until the inline commit after, which
        /// delivers them and then fails with the error, as when the committer thread finishes a
        /// batch just as the loop commits the next on its own thread.
        case heldUntilAFailedInlineCommit(StoreError)
        case holding([(Completion, Result<Void, StoreError>)], failure: StoreError)
    }

    let base: Base
    private let lock = NSLock()
    private var script = Script.passThrough
    /// Signalled for each unit whose completion is held.
    let held = DispatchSemaphore(value: 0)

    init(_ base: Base) { self.base = base }

    func play(_ script: Script) {
        lock.withLock { self.script = script }
    }

    // MARK: The commit paths

    func submit(_ unit: AppendUnit, completion: @escaping Completion) {
        lock.lock()
        guard case .holding(var completions, let failure) = script else {
            lock.unlock()
            return base.submit(unit, completion: completion)
        }
        completions.append((completion, Result { () throws(StoreError) in try base.append(unit) }))
        script = .holding(completions, failure: failure)
        lock.unlock()
        held.signal()
    }

    func commitIfIdle(_ units: [AppendUnit], later: () -> BatchCompletion) -> InlineCommit {
        lock.lock()
        switch script {
        case .passThrough:
            lock.unlock()
            return base.commitIfIdle(units, later: later)
        case .heldUntilAFailedInlineCommit(let failure):
            script = .holding([], failure: failure)
            lock.unlock()
            return .notRun
        case .holding(let completions, let failure):
            script = .passThrough
            lock.unlock()
            for (completion, result) in completions { completion(result) }
            return .done(units.map { _ in .failure(failure) })
        }
    }

    // MARK: Forwarded

    var kind: StoreKind { base.kind }
    var location: String { base.location }
    var durability: Durability { base.durability }
    var lastSeq: Int64 { base.lastSeq }
    var walCheckpoints: WALCheckpointCounts { base.walCheckpoints }
    func checkpointIfDue() { base.checkpointIfDue() }
    func append(_ unit: AppendUnit) throws(StoreError) { try base.append(unit) }
    func flush() { base.flush() }
    func yieldLogTurn() { base.yieldLogTurn() }
    func close() { base.close() }
    func lastRevision(of navigator: String) throws(StoreError) -> Int64 { try base.lastRevision(of: navigator) }
    func reply(forCommand id: String) throws(StoreError) -> JSON? { try base.reply(forCommand: id) }
    func command(_ id: String) throws(StoreError) -> StoredCommand? { try base.command(id) }
    func events(after seq: Int64, navigator: String?, limit: Int) throws(StoreError) -> [EventRecord] {
        try base.events(after: seq, navigator: navigator, limit: limit)
    }
    func events(of navigator: String, after seq: Int64, upTo last: Int64) throws(StoreError) -> [EventRecord] {
        try base.events(of: navigator, after: seq, upTo: last)
    }
    func navigators() throws(StoreError) -> [String] { try base.navigators() }
    func saveSnapshot(navigator: String, seq: Int64, revision: Int64, state: JSON) throws(StoreError) {
        try base.saveSnapshot(navigator: navigator, seq: seq, revision: revision, state: state)
    }
    func saveSnapshots(_ snapshots: [Snapshot], thinning: SnapshotThinning?) throws(StoreError) {
        try base.saveSnapshots(snapshots, thinning: thinning)
    }
    func thin(_ backlog: inout SnapshotBacklog, rows: Int) throws(StoreError) { try base.thin(&backlog, rows: rows) }
    func mayThinSnapshots() throws(StoreError) -> Bool { try base.mayThinSnapshots() }
    func raiseLease(shards: [Int: Int64]?, to frame: Int64) throws(StoreError) {
        try base.raiseLease(shards: shards, to: frame)
    }
    func lowerLease(shards: [Int: Int64]?, from: Int64, to frame: Int64) throws(StoreError) {
        try base.lowerLease(shards: shards, from: from, to: frame)
    }
    func latestSnapshots() throws(StoreError) -> [Snapshot] { try base.latestSnapshots() }
    func snapshot(of navigator: String, atOrBefore seq: Int64) throws(StoreError) -> Snapshot? {
        try base.snapshot(of: navigator, atOrBefore: seq)
    }
    func pastReader() throws(StoreError) -> any PastReading { try base.pastReader() }
    func integrityCheck() throws(StoreError) -> [String] { try base.integrityCheck() }
    func commandIDs() throws(StoreError) -> Base.CommandIDs { try base.commandIDs() }
    @discardableResult func importJSONLines(
        from path: String, commands: any CommandSequence, progress: @escaping (Int) -> Void
    ) throws(StoreError) -> Int {
        try base.importJSONLines(from: path, commands: commands, progress: progress)
    }
    func startDeferredCheck(then: @escaping @Sendable (Bool) -> Void) { base.startDeferredCheck(then: then) }
    func limitReadWaits(to answerTimeout: Duration) { base.limitReadWaits(to: answerTimeout) }
    func limitInlineCommitWaits(to wait: Duration) { base.limitInlineCommitWaits(to: wait) }
    func forEachEvent(after seq: Int64, _ body: (EventRecord) throws(StoreError) -> Void) throws(StoreError) {
        try base.forEachEvent(after: seq, body)
    }
    func commandRecords(after id: String?, limit: Int) throws(StoreError) -> [CommandRecord] {
        try base.commandRecords(after: id, limit: limit)
    }
}
