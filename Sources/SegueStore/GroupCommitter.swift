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
/// hand-off, which on a small virtual machine costs more than the commit itself. `busy` keeps the
/// two paths from ever running at once and keeps units in submission order.
final class GroupCommitter: @unchecked Sendable {
    typealias Completion = @Sendable (Result<Void, StoreError>) -> Void

    private enum Job {
        case append(AppendUnit, Completion)
        /// Work that needs the write connection (snapshots, imports, fault injection), run in order.
        case task((LogWriter) -> Void)
    }

    /// Most units per transaction, so that one batch's completions are not held back by a backlog.
    static let maxBatchUnits = 8192

    private let condition = NSCondition()
    private var pending: [Job] = []
    private var stopping = false
    private var stopped = false
    /// A batch or task is running, on the committer thread or on an inline caller's.
    private var busy = false
    /// The last committed seq, readable from any thread without waiting for the writer.
    let committedSeq: Atomic<Int64>
    /// Transactions committed (or attempted) for appends: batch sizes are units / commits.
    let commits = Atomic<Int>(0)
    /// Used by whoever set `busy`: the committer thread, or a `commitIfIdle` caller.
    private nonisolated(unsafe) let writer: LogWriter

    init(writer: LogWriter) {
        self.writer = writer
        committedSeq = Atomic(writer.lastSeq)
        let thread = Thread { [self] in run() }
        thread.name = "segue-store-commit"
        thread.start()
    }

    /// Queues `unit` for the next transaction. `completion` runs on the committer thread after
    /// COMMIT returned (success) or the batch was rolled back (failure); it must not block.
    func submit(_ unit: AppendUnit, completion: @escaping Completion) {
        condition.lock()
        guard !stopping else {
            condition.unlock()
            completion(.failure(Self.closedError))
            return
        }
        pending.append(.append(unit, completion))
        condition.signal()
        condition.unlock()
    }

    /// Commits `units` in one transaction on the calling thread, if nothing is queued or running;
    /// returns one result per unit, or nil when the writer is busy (then `submit` them instead).
    func commitIfIdle(_ units: [AppendUnit]) -> [Result<Void, StoreError>]? {
        condition.lock()
        guard !stopping, !busy, pending.isEmpty else {
            condition.unlock()
            return nil
        }
        busy = true
        condition.unlock()
        let results = writer.commit(units)
        commits.add(1, ordering: .relaxed)
        committedSeq.store(writer.lastSeq, ordering: .releasing)
        condition.lock()
        busy = false
        // Whatever was submitted meanwhile waited for us; the committer thread takes it now.
        if !pending.isEmpty || stopping { condition.broadcast() }
        condition.unlock()
        return results
    }

    /// Runs `body` on the committer thread with the writer, after everything submitted before it.
    func perform<T>(_ body: @escaping (LogWriter) throws(StoreError) -> T) throws(StoreError) -> T {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: Result<T, StoreError> = .failure(Self.closedError)
        condition.lock()
        guard !stopping else {
            condition.unlock()
            throw Self.closedError
        }
        pending.append(
            .task { [self] writer in
                do throws(StoreError) { outcome = .success(try body(writer)) } catch { outcome = .failure(error) }
                // Published before the caller wakes, so `lastSeq` right after an import is current.
                self.committedSeq.store(writer.lastSeq, ordering: .releasing)
                done.signal()
            })
        condition.signal()
        condition.unlock()
        done.wait()
        return try outcome.get()
    }

    /// Returns once everything submitted before the call has committed or failed.
    func flush() {
        _ = try? perform { _ in () }
    }

    /// Drains pending work, then stops the thread and closes the write connection. Idempotent.
    func close() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while !stopped { condition.wait() }
        condition.unlock()
    }

    static let closedError = StoreError(
        kind: .closed, message: "The event store is closed; the command was not stored. Retry once segued is back.")

    // MARK: The thread

    private func run() {
        while let jobs = nextJobs() {
            var batch: [AppendUnit] = []
            var completions: [Completion] = []
            for job in jobs {
                switch job {
                case .append(let unit, let completion):
                    batch.append(unit)
                    completions.append(completion)
                case .task(let body):
                    commit(&batch, &completions)
                    body(writer)
                    committedSeq.store(writer.lastSeq, ordering: .releasing)
                }
            }
            commit(&batch, &completions)
            condition.lock()
            busy = false
            condition.unlock()
        }
        writer.close()
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits for work (and for an inline commit to finish); nil once stopping and drained.
    private func nextJobs() -> [Job]? {
        condition.lock()
        defer { condition.unlock() }
        while busy || (pending.isEmpty && !stopping) { condition.wait() }
        if pending.isEmpty { return nil }
        busy = true
        var taken = 0
        var units = 0
        for job in pending {
            if case .append = job { units += 1 }
            if units > Self.maxBatchUnits { break }
            taken += 1
        }
        let jobs = Array(pending.prefix(taken))
        pending.removeFirst(taken)
        return jobs
    }

    private func commit(_ batch: inout [AppendUnit], _ completions: inout [Completion]) {
        guard !batch.isEmpty else { return }
        let results = writer.commit(batch)
        commits.add(1, ordering: .relaxed)
        committedSeq.store(writer.lastSeq, ordering: .releasing)
        for (completion, result) in zip(completions, results) { completion(result) }
        batch.removeAll(keepingCapacity: true)
        completions.removeAll(keepingCapacity: true)
    }
}
