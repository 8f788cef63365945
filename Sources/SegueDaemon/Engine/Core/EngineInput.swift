import SegueCore
import SeguePostgres
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
    /// How many peers are connected to the publishing sockets now.
    case subscribers(Int)
    /// A SIGHUP reload: the defaults for navigators created from now on.
    case reload(defaultAnimators: AnimatorRules?)
    /// Shards this daemon took or lost (several daemons on one log), applied once nothing of its
    /// own is waiting to commit (`EngineCore.applyLeadership`).
    case leadership([LeadershipChange], now: Int64)
    /// A frame lease through `frame` (asked for in `generation`, `FrameLease`) was written, or its
    /// write failed (`failure`); `now` is when.
    case leased(frame: Int64, generation: Int, failure: StoreError?, now: Int64)
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
    /// How many events the unit holds: what `stats.events` counts once they are stored.
    var events: Int
    var result: Result<Void, StoreError>

    /// The result of committing `unit`, handed out under `epoch`.
    init(epoch: Int, for unit: AppendUnit, result: Result<Void, StoreError>) {
        self.epoch = epoch
        self.seq = unit.events[unit.events.count - 1].seq
        self.events = unit.events.count
        self.result = result
    }
}
