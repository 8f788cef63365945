/// Counters reported by `stats` and in STATUS= lines.
struct EngineStats {
    var commands: Int64 = 0
    var rejected: Int64 = 0
    var events: Int64 = 0
    var ticks: Int64 = 0
    var framesClosed: Int64 = 0
    /// Frames closed more than 2 ms after their instant.
    var lateFrames: Int64 = 0
    /// Frames skipped in a catch-up (their ticks never published).
    var missedFrames: Int64 = 0
    var subscriptions: Int64 = 0
    var commitFailures: Int64 = 0
    var idempotentReplays: Int64 = 0
    var malformed: Int64 = 0
    var checkpoints: Int64 = 0
}
