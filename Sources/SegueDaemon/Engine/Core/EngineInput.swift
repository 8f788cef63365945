import SegueCore
import SegueStore

/// One thing that happened to the engine, with the wall-clock instant (Unix ns) it happened at where
/// the rules depend on it. The loop feeds them to `EngineCore.receive` one at a time.
enum EngineInput {
    /// A message from the command socket: its frames (routing id first) and the CURVE user id its
    /// connection was admitted with (nil without security).
    case request(frames: [[UInt8]], userID: String?, now: Int64)
    /// Frames may have fallen due: closes every frame whose instant is at or before `now`.
    case frameDeadline(now: Int64)
    /// The loop turn's reading is done: what it decided is committed (`.append`).
    case commit
    /// Commit results, each for the unit that ended at `seq` (in seq order); then whatever became
    /// durable is released.
    case committed([EngineCompletion])
    /// The loop's timers: the heartbeat and the once-a-second housekeeping, each when due.
    case housekeeping(now: Int64)
    /// The end of a loop turn: a checkpoint of snapshots, when one is due and durable.
    case turnEnded
    /// Subscribers came (+1) or went (-1) on the publish socket.
    case subscriptions(Int)
    /// A SIGHUP reload: the defaults for navigators created from now on.
    case reload(defaultAnimators: AnimatorRules?)
    /// The loop is stopping: every line the rate limits hold back goes out, and a last heartbeat.
    case shutdown(now: Int64)
}

/// The result of committing one unit, handed back to the core.
struct EngineCompletion: Sendable {
    /// The core's commit epoch when the unit was handed out: results of an epoch a failure ended are
    /// stale (their units were already voided).
    var epoch: Int
    /// The unit's last seq.
    var seq: Int64
    var result: Result<Void, StoreError>
}

/// The clock the core measures itself with: how long a frame close took (to notice overload), where
/// a stalled loop's time went, when a rate-limited log line is due. Instants that decide anything
/// (frames, event times) come with the inputs. The loop passes the system's; tests pass one they
/// advance by hand.
protocol EngineClock: AnyObject {
    /// Monotonic nanoseconds.
    func monotonic() -> Int64
    /// The calling thread's CPU time in nanoseconds.
    func threadCPU() -> Int64
}

/// What the core reads from the log, synchronously, on its own thread: command ids already applied,
/// `state --at`, `history`, the fold at start. Read-only: appends go out as `.append` actions.
protocol EngineLogReading: AnyObject {
    var lastSeq: Int64 { get }
    var walCheckpoints: WALCheckpointCounts { get }
    func command(_ id: String) throws(StoreError) -> StoredCommand?
    func events(after seq: Int64, navigator: String?, limit: Int) throws(StoreError) -> [EventRecord]
    func events(of navigator: String, after seq: Int64, upTo last: Int64) throws(StoreError) -> [EventRecord]
    func latestSnapshots() throws(StoreError) -> [Snapshot]
    func snapshot(of navigator: String, atOrBefore seq: Int64) throws(StoreError) -> Snapshot?
    func forEachEvent(after seq: Int64, _ body: (EventRecord) throws(StoreError) -> Void) throws(StoreError)
}

/// Any store, read by the core.
final class StoreLogReader: EngineLogReading {
    let store: any EventStoring

    init(_ store: any EventStoring) { self.store = store }

    var lastSeq: Int64 { store.lastSeq }
    var walCheckpoints: WALCheckpointCounts { store.walCheckpoints }
    func command(_ id: String) throws(StoreError) -> StoredCommand? { try store.command(id) }
    func events(after seq: Int64, navigator: String?, limit: Int) throws(StoreError) -> [EventRecord] {
        try store.events(after: seq, navigator: navigator, limit: limit)
    }
    func events(of navigator: String, after seq: Int64, upTo last: Int64) throws(StoreError) -> [EventRecord] {
        try store.events(of: navigator, after: seq, upTo: last)
    }
    func latestSnapshots() throws(StoreError) -> [Snapshot] { try store.latestSnapshots() }
    func snapshot(of navigator: String, atOrBefore seq: Int64) throws(StoreError) -> Snapshot? {
        try store.snapshot(of: navigator, atOrBefore: seq)
    }
    func forEachEvent(after seq: Int64, _ body: (EventRecord) throws(StoreError) -> Void) throws(StoreError) {
        try store.forEachEvent(after: seq, body)
    }
}
