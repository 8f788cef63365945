/// What the leadership thread reports to the engine.
package enum LeadershipChange: Sendable, Equatable {
    /// This daemon took `shard` (its advisory lock, then the epoch bumped to `epoch`): fold the
    /// shard from the log, resolve its in-flight transitions, and serve it.
    case acquired(shard: Int, epoch: Int64)
    /// This daemon no longer leads these shards (the lock's session was lost, or an append was
    /// refused by the fence): forget them; commands for them are answered `moved`.
    case lost(shards: [Int], reason: String)
}
