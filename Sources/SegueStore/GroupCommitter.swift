import Foundation
import Synchronization

/// The single writer thread: everything submitted while a commit is in flight goes into the next one.
///
/// This is group commit as databases have done it since the 1980s (and as Postgres' `commit_delay`
/// or MySQL's binlog group commit do it): the thread takes every pending unit, commits them in one
/// transaction with one WAL sync, and only then fires their completions. It never waits to gather a
/// batch, so a lone append pays one sync and no delay; under load batches grow by themselves.
///
/// A caller that batches on its own (the daemon's loop gathers one turn's commands) can also commit
/// on its own thread while the writer is idle (`commitIfIdle`): a lone command then pays no thread
/// hand-off, which on a small virtual machine costs more than the commit itself. Reads that the
/// write connection answers best (its page cache stays current) run the same way
/// (`withWriterIfIdle`). `busy` keeps the committer thread and such callers from ever using the writer
/// at once, and keeps units in submission order.
package final class GroupCommitter<Writer: BatchWriter>: @unchecked Sendable {
    package typealias Completion = @Sendable (Result<Void, StoreError>) -> Void

    /// Most units per transaction, so that one batch's completions are not held back by a backlog.
    package let maxBatchUnits: Int

    private let condition = NSCondition()
    private var pending = CommitQueue()
    /// The emptied queue of the previous round, kept for its capacity (guarded by `condition`).
    private var spare = CommitQueue()
    private var stopping = false
    private var stopped = false
    /// A batch or task is running, on the committer thread or on an inline caller's.
    private var busy = false
    /// `flush` calls waiting for `busy` to clear.
    private var idleWaiters = 0
    /// The newest generation a unit of which failed (`AppendUnit.generation`); touched only by
    /// whoever holds `busy`.
    private var failedGeneration: Int?
    /// The last committed seq, readable from any thread without waiting for the writer.
    package let committedSeq: Atomic<Int64>
    /// Transactions committed (or attempted) for appends: batch sizes are units / commits.
    package let commits = Atomic<Int>(0)
    /// Used by whoever set `busy`: the committer thread, or a `commitIfIdle` caller.
    nonisolated(unsafe) let writer: Writer

    package init(writer: Writer, maxBatchUnits: Int = 8192) {
        self.writer = writer
        self.maxBatchUnits = maxBatchUnits
        committedSeq = Atomic(writer.lastSeq)
        Thread(named: "segue-commit") { [self] in run() }.start()
    }

    /// Queues `unit` for the next transaction. `completion` runs on the committer thread after
    /// COMMIT returned (success) or the batch was rolled back (failure); it must not block.
    package func submit(_ unit: AppendUnit, completion: @escaping Completion) {
        condition.lock()
        guard !stopping else {
            condition.unlock()
            completion(.failure(Self.closedError))
            return
        }
        pending.units.append(unit)
        pending.completions.append(completion)
        condition.signal()
        condition.unlock()
    }

    /// Commits `units` in one transaction on the calling thread, if nothing is queued or running.
    ///
    /// The writer may decline (`.notRun`: it must connect first; then `submit` them), or, when the
    /// server is slow to answer, leave the wait to the committer thread (`.handedOff`): that
    /// thread then reads the answer, ahead of anything submitted meanwhile, and calls the handler
    /// `later` made (made only then, so the common path allocates nothing) with the results.
    ///
    /// The checkpoint decision a previous commit left due is taken here, but a copy it calls for
    /// (a catch-up's two syncs, the backstop's wait for a pass) goes to the committer thread: the
    /// caller is the daemon's frame loop, which must not wait for the disk. Commits that come while
    /// it runs queue behind it, as they would behind SQLite's own checkpoint.
    package func commitIfIdle(_ units: [AppendUnit], later: () -> BatchCompletion) -> InlineCommit {
        condition.lock()
        guard !stopping, !busy, pending.isEmpty else {
            condition.unlock()
            return .notRun
        }
        busy = true
        condition.unlock()
        let copy = writer.takeDueUpkeep()
        let refused = isDecidedAfterAFailure(units.first)
        let attempt = refused ? .done(Self.refusals(units[...])) : writer.commitInline(units[...])
        var rest: (() -> Void)?
        switch attempt {
        case .done(let results):
            noteFailures(units[...], results)
            if !refused { commits.add(1, ordering: .relaxed) }
            committedSeq.store(writer.lastSeq, ordering: .releasing)
        case .continuing(let finish):
            let deliver = later()
            rest = { [self] in
                let results = finish()
                noteFailures(units[...], results)
                commits.add(1, ordering: .relaxed)
                committedSeq.store(writer.lastSeq, ordering: .releasing)
                deliver(results)
            }
        case .notRun: break
        }
        condition.lock()
        busy = false
        // First in the queue: whatever was submitted meanwhile comes after this batch.
        if let rest { pending.tasks.insert((0, rest), at: 0) }
        // Whatever was submitted meanwhile waited for us; the committer thread takes it now (and a
        // `flush` may be waiting for the writer to go idle). Only then: waking the sleeping committer
        // thread for nothing costs two context switches per commit, more than the commit itself.
        if !pending.isEmpty || stopping || idleWaiters > 0 { condition.broadcast() }
        condition.unlock()
        handOff(copy)
        switch attempt {
        case .done(let results): return .done(results)
        case .notRun: return .notRun
        case .continuing: return .handedOff
        }
    }

    /// Runs `body` with the writer on the calling thread if nothing is queued or running; nil when the
    /// writer is busy. For reads that the write connection answers from its page cache, which stays
    /// valid because no other connection writes.
    package func withWriterIfIdle<T>(_ body: (Writer) -> T) -> T? {
        condition.lock()
        guard !stopping, !busy, pending.isEmpty else {
            condition.unlock()
            return nil
        }
        busy = true
        condition.unlock()
        let result = body(writer)
        condition.lock()
        busy = false
        // Whatever was submitted meanwhile waited for us; the committer thread takes it now (and a
        // `flush` may be waiting for the writer to go idle). Only then: waking the sleeping committer
        // thread for nothing costs two context switches per commit, more than the commit itself.
        if !pending.isEmpty || stopping || idleWaiters > 0 { condition.broadcast() }
        condition.unlock()
        return result
    }

    /// Runs `body` on the committer thread with the writer, after everything submitted before it.
    package func perform<T>(_ body: @escaping (Writer) throws(StoreError) -> T) throws(StoreError) -> T {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: Result<T, StoreError> = .failure(Self.closedError)
        let task: () -> Void = { [self] in
            do throws(StoreError) { outcome = .success(try body(writer)) } catch { outcome = .failure(error) }
            // Published before the caller wakes, so `lastSeq` right after an import is current.
            self.committedSeq.store(writer.lastSeq, ordering: .releasing)
            done.signal()
        }
        condition.lock()
        guard !stopping else {
            condition.unlock()
            throw Self.closedError
        }
        pending.tasks.append((pending.units.count, task))
        condition.signal()
        condition.unlock()
        done.wait()
        return try outcome.get()
    }

    /// Runs `body` on the committer thread with the writer, after everything submitted before it,
    /// without waiting for it (nothing once closing).
    package func performLater(_ body: @escaping (Writer) -> Void) {
        let task: () -> Void = { [self] in body(writer) }
        condition.lock()
        defer { condition.unlock() }
        guard !stopping else { return }
        pending.tasks.append((pending.units.count, task))
        condition.signal()
    }

    /// Tasks (`perform`) queued and not yet started: lets tests line work up behind a held writer.
    package var queuedTaskCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return pending.tasks.count
    }

    /// Returns once everything submitted before the call has committed or failed.
    ///
    /// Also waits for the writer to go idle if nothing else was queued meanwhile, so that a
    /// `commitIfIdle` right after a flush is not turned away by the flush's own round.
    package func flush() {
        _ = try? perform { _ in () }
        condition.lock()
        idleWaiters += 1
        while busy && pending.isEmpty && !stopped { condition.wait() }
        idleWaiters -= 1
        condition.unlock()
    }

    /// Drains pending work, then stops the thread and closes the write connection. Idempotent.
    package func close() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while !stopped { condition.wait() }
        condition.unlock()
    }

    package static var closedError: StoreError { StoreError.closedStore }

    // MARK: The thread

    private func run() {
        while var round = nextRound() {
            var start = 0
            for task in round.tasks {
                commit(round, start..<task.position)
                task.body()
                committedSeq.store(writer.lastSeq, ordering: .releasing)
                // A task's transaction (snapshots, leases) grows the WAL as appends do; its caller
                // was answered inside `body`.
                writer.runDueUpkeep()
                start = task.position
            }
            commit(round, start..<round.units.count)
            finish(&round)
        }
        writer.close()
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits for work (and for an inline commit to finish); nil once stopping and drained.
    ///
    /// Takes the whole queue by swapping it with the spare one (no copy of the units); only a backlog
    /// of more than `maxBatchUnits` appends is split, tasks staying between the units they were
    /// queued between.
    private func nextRound() -> CommitQueue? {
        condition.lock()
        defer { condition.unlock() }
        while busy || (pending.isEmpty && !stopping) { condition.wait() }
        if pending.isEmpty { return nil }
        busy = true
        var round = CommitQueue()
        swap(&round, &spare)
        swap(&round, &pending)
        let count = maxBatchUnits
        if round.units.count > count {
            // The rest stays queued, ahead of anything submitted from now on.
            pending.units.append(contentsOf: round.units[count...])
            pending.completions.append(contentsOf: round.completions[count...])
            round.units.removeSubrange(count...)
            round.completions.removeSubrange(count...)
            let later = round.tasks.firstIndex { $0.position > count } ?? round.tasks.count
            pending.tasks.append(contentsOf: round.tasks[later...].map { ($0.position - count, $0.body) })
            round.tasks.removeSubrange(later...)
        }
        return round
    }

    /// Ends a round: clears `busy` (waking a `flush` that waits for it), then frees the round's units
    /// outside the lock and keeps the emptied queue for its capacity.
    private func finish(_ round: inout CommitQueue) {
        condition.lock()
        busy = false
        condition.broadcast()
        condition.unlock()
        round.removeAll()
        condition.lock()
        swap(&spare, &round)
        condition.unlock()
    }

    private func commit(_ round: CommitQueue, _ range: Range<Int>) {
        // The units decided after a failure come first: generations only grow in submission order
        // (a caller that sets them sets them on every unit).
        let fresh = range.first { !isDecidedAfterAFailure(round.units[$0]) } ?? range.upperBound
        let refused = range.lowerBound..<fresh
        for (completion, result) in zip(round.completions[refused], Self.refusals(round.units[refused])) {
            completion(result)
        }
        let range = fresh..<range.upperBound
        guard !range.isEmpty else { return }
        let results = writer.commit(round.units[range])
        noteFailures(round.units[range], results)
        commits.add(1, ordering: .relaxed)
        committedSeq.store(writer.lastSeq, ordering: .releasing)
        for (completion, result) in zip(round.completions[range], results) { completion(result) }
        writer.runDueUpkeep()
    }

    // MARK: Generations

    /// Whether `unit` was decided on top of a unit that failed (`AppendUnit.generation`).
    private func isDecidedAfterAFailure(_ unit: AppendUnit?) -> Bool {
        guard let generation = unit?.generation, let failedGeneration else { return false }
        return generation <= failedGeneration
    }

    private func noteFailures(_ units: ArraySlice<AppendUnit>, _ results: [Result<Void, StoreError>]) {
        for (unit, result) in zip(units, results) {
            guard case .failure = result, let generation = unit.generation else { continue }
            failedGeneration = max(failedGeneration ?? generation, generation)
        }
    }

    private static func refusals(_ units: ArraySlice<AppendUnit>) -> [Result<Void, StoreError>] {
        units.map { _ in .failure(StoreError.decidedAfterAFailure) }
    }

    /// Takes the checkpoint decision an inline commit left due, if the writer is idle (else the
    /// committer thread or the next commit takes it); a copy it calls for runs on the committer
    /// thread (`commitIfIdle`).
    package func checkpointIfIdle() {
        guard writer.upkeepDue else { return }
        handOff(withWriterIfIdle { writer in writer.takeDueUpkeep() } ?? nil)
    }

    /// Queues the copy a checkpoint decision asked for, to run on the committer thread after
    /// everything queued so far; returns at once.
    private func handOff(_ copy: (() -> Void)?) {
        guard let copy else { return }
        condition.lock()
        defer { condition.unlock() }
        // Closing: the writer's close checkpoints what is left anyway.
        guard !stopping else { return }
        // Then the decision a commit made meanwhile, which the caller's `checkpointIfIdle` skipped
        // while this was queued.
        pending.tasks.append(
            (
                pending.units.count,
                { [writer] in
                    copy()
                    writer.runDueUpkeep()
                }
            ))
        condition.signal()
    }
}

/// Work queued for the writer, in submission order: appends as parallel arrays (so a round hands its
/// units to `LogWriter.commit` without copying them), and tasks that need the write connection
/// (snapshots, imports, fault injection), each to run before `units[position]`.
///
/// Not nested in the generic `GroupCommitter`, and the writer's upkeep comes as a closure rather than
/// an associated type: unspecialized generic code (the PostgreSQL store calls the committer from
/// another module) looked up the metadata of every such type at run time on each commit, ~2 % of a
/// waiting command's time on the loop's thread (docs/performance.md).
private struct CommitQueue {
    var units: [AppendUnit] = []
    var completions: [@Sendable (Result<Void, StoreError>) -> Void] = []
    var tasks: [(position: Int, body: () -> Void)] = []

    var isEmpty: Bool { units.isEmpty && tasks.isEmpty }

    mutating func removeAll() {
        units.removeAll(keepingCapacity: true)
        completions.removeAll(keepingCapacity: true)
        tasks.removeAll(keepingCapacity: true)
    }
}

/// What the group committer drives: a writer that commits a batch of units in one transaction, on
/// whichever thread holds the committer's `busy` flag, plus the upkeep a commit may leave due (the
/// SQLite writer's WAL checkpoints; the PostgreSQL writer's release of a batch's remains).
package protocol BatchWriter: AnyObject, SendableMetatype {
    /// The last committed `seq`.
    var lastSeq: Int64 { get }
    /// Commits `units` in one transaction (rejected units skipped) and returns one result per unit.
    func commit(_ units: ArraySlice<AppendUnit>) -> [Result<Void, StoreError>]
    /// `commit` for a caller that must not wait long (`commitIfIdle`'s: the daemon's frame loop): it
    /// may decline, or leave the rest of the wait to the committer thread (`InlineAttempt`).
    func commitInline(_ units: ArraySlice<AppendUnit>) -> InlineAttempt
    /// Closes the writer's connection; called once, on the committer thread, after the last work.
    func close()
    /// Whether a commit left an upkeep decision due; read from any thread, so cheap and atomic.
    var upkeepDue: Bool { get }
    /// Takes the due decision, cheaply; returns the costly part, to run later on the committer
    /// thread (which holds the writer then), if any.
    func takeDueUpkeep() -> (() -> Void)?
    /// Takes the due decision and runs what it calls for, here.
    func runDueUpkeep()
}

extension BatchWriter {
    package func commitInline(_ units: ArraySlice<AppendUnit>) -> InlineAttempt { .done(commit(units)) }
}

/// What a writer did with an inline commit (`BatchWriter.commitInline`).
package enum InlineAttempt {
    case done([Result<Void, StoreError>])
    /// Nothing: the writer must connect, or settle an earlier batch, first (on the committer thread).
    case notRun
    /// Sent; the rest (the answer, and what it means for the units) is to run on the committer thread.
    case continuing(() -> [Result<Void, StoreError>])
}

/// What `commitIfIdle` did with the units.
package enum InlineCommit {
    /// Committed, or failed, on the caller's thread: one result per unit.
    case done([Result<Void, StoreError>])
    /// Not run (the writer was busy, or must connect first): `submit` them.
    case notRun
    /// Sent, and the answer is awaited on the committer thread, which hands the results to the
    /// handler the caller gave.
    case handedOff
}

/// Receives the results of a batch whose commit the committer thread finished, one per unit.
package typealias BatchCompletion = @Sendable ([Result<Void, StoreError>]) -> Void

extension GroupCommitter where Writer == LogWriter {
    /// The writer's background checkpointer, whose counters any thread may read.
    var checkpointer: WALCheckpointer { writer.checkpointer }
}
