import SegueCore

/// The frames a recorded log replays into, from the same core as `segue replay`: the one place
/// `timeline` and `view --replay` reach the replayer, so moving it is a change here alone.
enum FrameSource {
    /// Calls `body` with every frame visited, its events (applied before its ticks) and its ticks.
    static func run(
        _ events: [EventRecord], clock: FrameClock, stopBefore: Int64,
        _ body: (_ frame: Int64, _ events: [EventRecord], _ ticks: [Tick]) throws -> Void
    ) throws {
        var replayer = TickReplayer(events: events, clock: clock, stopBefore: stopBefore)
        try replayer.run(body)
    }
}
