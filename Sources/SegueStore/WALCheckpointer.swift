import Foundation
import Synchronization

/// Copies the WAL back into the database file on a thread of its own, so that no commit waits for it.
///
/// SQLite's default (`wal_autocheckpoint`, 1,000 pages) checkpoints inside the COMMIT that crosses
/// the threshold: that command waits while ~4 MB are copied and the WAL and database file are synced
/// (p99.9 of a relaxed push was 5–6 ms against a p99 of 0.4–0.6 ms). Here the writer notes the WAL's
/// length after each commit (`Database.trackWALLength`) and, each time `threshold` more frames are
/// in it, asks this thread for a PASSIVE checkpoint on its own connection, which copies what is
/// committed without blocking the writer.
///
/// SQLite restarts the WAL from its start only at a write that finds every frame copied. A pass that
/// ends between two commits leaves it so; under steady load frames committed during the pass are
/// left. Copying those costs two syncs, so the writer does it after a pass only once the WAL is
/// `restartAt` long (`LogWriter`), and the WAL wraps at the write after. Past `limit` frames (a pass
/// far behind, failing, or held back by a reader pinning old frames) the writer waits for a running
/// pass and checkpoints inline after every commit, as SQLite would, so the WAL stays bounded.
///
/// Crash safety is SQLite's own: a checkpoint syncs the WAL before copying and the database file
/// before the WAL may be reused, whichever connection runs it.
final class WALCheckpointer: @unchecked Sendable {
    let path: String
    let durability: Durability
    /// The WAL length (frames) at which the writer asks for a background pass.
    let threshold: Int32
    /// The WAL length from which the writer, after a pass, copies the remainder so the WAL restarts.
    var restartAt: Int32 { threshold * 4 }
    /// The WAL length at which the writer stops waiting for the background and checkpoints inline.
    var limit: Int32 { threshold * 8 }
    let busyTimeoutMilliseconds: Int32

    /// Background passes run, successful or not: the writer catches up after each one it asked for.
    let passes = Atomic<Int>(0)
    /// Counts for `EventStore.walCheckpoints`; the writer adds its inline ones.
    let background = Atomic<Int>(0)
    let catchUps = Atomic<Int>(0)
    let forced = Atomic<Int>(0)
    let failures = Atomic<Int>(0)
    let restarts = Atomic<Int>(0)
    /// A commit happened since the writer last decided about checkpoints (`LogWriter.runDueCheckpoint`).
    let checkDue = Atomic<Bool>(false)

    private let condition = NSCondition()
    private var requested = false
    private var running = false
    private var started = false
    private var stopping = false
    private var stopped = false

    init(path: String, durability: Durability, threshold: Int32, busyTimeoutMilliseconds: Int32) {
        precondition(threshold > 0 && threshold <= Int32.max / 8, "checkpoint threshold out of range")
        self.path = path
        self.durability = durability
        self.threshold = threshold
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
    }

    /// Asks for a pass; does nothing while one is asked for or running (it will cover the frames
    /// committed so far, and the writer's catch-up the rest). The thread starts at the first request,
    /// so a store that never fills its WAL (tests, tools) never has one.
    func request() {
        condition.lock()
        defer { condition.unlock() }
        guard !stopping, !requested, !running else { return }
        requested = true
        if !started {
            started = true
            Thread(named: "segue-checkpt") { [self] in run() }.start()
        }
        // Broadcast: `waitUntilIdle` and `stop` wait on the same condition for other predicates, and
        // a signal could wake one of them instead of the thread.
        condition.broadcast()
    }

    /// Returns once no pass is asked for or running: the writer's backstop at `limit`, and tests'
    /// way to a known state (a pass on a loaded machine may take long, mostly its syncs).
    func waitUntilIdle() {
        condition.lock()
        defer { condition.unlock() }
        while (requested || running) && !stopped { condition.wait() }
    }

    /// Lets a running pass finish, then stops the thread and closes its connection. Idempotent.
    func stop() {
        condition.lock()
        defer { condition.unlock() }
        stopping = true
        condition.broadcast()
        while started && !stopped { condition.wait() }
    }

    // MARK: The thread

    private func run() {
        // Started by whichever thread first commits, often the daemon's realtime frame loop, whose
        // policy a new thread inherits: copying megabytes must never delay a frame.
        BackgroundThread.leaveRealtimePolicy()
        var database: Database?
        while waitForRequest() {
            do throws(StoreError) {
                if database == nil { database = try open() }
                // Busy: the writer's own inline checkpoint was running; it copied what this would have.
                if try !database!.checkpointPassive().busy { background.add(1, ordering: .relaxed) }
            } catch {
                // Reopened for the next pass; the writer's inline checkpoints bound the WAL meanwhile.
                failures.add(1, ordering: .relaxed)
                database = nil
            }
            // Counted before `running` clears, so a request made right after is never mistaken for
            // this pass having finished it.
            condition.lock()
            passes.add(1, ordering: .releasing)
            running = false
            condition.broadcast()
            condition.unlock()
        }
        database = nil
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits for a request; false once stopping.
    private func waitForRequest() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !requested && !stopping { condition.wait() }
        guard !stopping else { return false }
        requested = false
        running = true
        return true
    }

    /// A connection of its own, syncing as the writer does, keeping the WAL file like every other
    /// connection of the store; one read brings it into WAL mode before its first checkpoint.
    private func open() throws(StoreError) -> Database {
        let database = try Database(path: path, create: false)
        database.setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
        try database.execute("PRAGMA synchronous = \(durability == .full ? "FULL" : "NORMAL")")
        database.keepWALFile()
        _ = try database.scalarInt("PRAGMA schema_version")
        return database
    }
}
