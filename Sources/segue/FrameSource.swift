import SegueCore

/// The frames a recorded log replays into (`LogReplay`, the daemon's own frame path): the one place
/// `replay`, `watch --replay`, `timeline` and `view --replay` reach it.
enum FrameSource {
    /// Calls `body` with every frame visited, its events (applied before its ticks) and its ticks.
    /// `presentationDelay` (ns): the daemon's, for the ticks' `presentAt`.
    static func run(
        _ events: [EventRecord], clock: FrameClock, stopBefore: Int64 = .max, presentationDelay: Int64 = 0,
        _ body: (_ frame: Int64, _ events: [EventRecord], _ ticks: [Tick]) throws -> Void
    ) throws {
        var replayer = LogReplay(
            events: events, clock: clock, stopBefore: stopBefore, presentationDelay: presentationDelay)
        try replayer.run(body)
    }
}
