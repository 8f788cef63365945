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
    /// Catch-ups that skipped frames (each adds its frames to `missedFrames`), and how many of them
    /// were a command's, skipping frames on purpose under overload.
    var stalls: Int64 = 0
    var overloadStalls: Int64 = 0
    var subscriptions: Int64 = 0
    /// Peers connected to the publishing sockets (handshake done, not yet gone).
    var subscribers: Int64 = 0
    var commitFailures: Int64 = 0
    /// With several daemons on the log: batches refused because another appended first, and the
    /// commands of theirs decided again (`EngineCore+Races.swift`), and those answered `unavailable`
    /// after losing every time.
    var lostRaces: Int64 = 0
    var raceReruns: Int64 = 0
    var raceRefusals: Int64 = 0
    /// Loop turns that committed something (one transaction each while the writer is idle), and the
    /// units (one per command or clock step) they carried: `units / commits` is the group size.
    var commits: Int64 = 0
    var committedUnits: Int64 = 0
    /// Commits that first waited for other recent writers' commands (`gatherSiblings`).
    var siblingWaits: Int64 = 0
    var idempotentReplays: Int64 = 0
    var malformed: Int64 = 0
    var checkpoints: Int64 = 0
}
