import SegueCore

/// Regenerates, from a recorded log, the ticks the daemon published: the same `Fleet` the daemon
/// runs, fed the same events in the same frames (docs/design.md, "The frame clock": the tick for frame F reflects
/// exactly the events whose frame is ≤ F).
///
/// The daemon's frame loop (`Engine.closeFrames`) takes ticks of frame F after every event of frame
/// ≤ F, and visits frames only while some navigator is active. Here the clock's events are not
/// decided again (`Fleet.advance`) but read from the log, where the daemon recorded them, so the
/// fold is `apply` in seq order with `ticks(frame:prune:)` between frames, and idle stretches are
/// skipped to the next event's frame.
///
/// After the last event the daemon stopped at some unknown frame; a navigator's ticks continue only
/// until the frame at which it would have logged its next clock event (`Navigator.nextDueFrame`),
/// since that event is missing, so the daemon never closed that frame.
///
/// A replay cut short (`--to`) stops before `stopBefore`, the frame of the first event left out: from
/// that frame on, what the daemon published showed that event, which this replay does not have.
struct TickReplayer {
    private(set) var fleet: Fleet
    private let events: [EventRecord]
    private let stopBefore: Int64
    private var next = 0

    init(events: [EventRecord], clock: FrameClock, stopBefore: Int64 = .max) {
        self.events = events
        self.stopBefore = stopBefore
        fleet = Fleet(clock: clock)
    }

    /// Calls `body` for every frame visited, in order, with the events that took effect in it (those
    /// applied just before its ticks) and its ticks.
    mutating func run(_ body: (_ frame: Int64, _ events: [EventRecord], _ ticks: [Tick]) throws -> Void) throws {
        guard let first = events.first else { return }
        var frame = first.frame
        while frame < stopBefore {
            var applied: [EventRecord] = []
            while next < events.count, events[next].frame <= frame {
                try fleet.apply(events[next])
                applied.append(events[next])
                next += 1
            }
            let logEnded = next == events.count
            var ticks = fleet.active.isEmpty ? [] : fleet.ticks(frame: frame, prune: true)
            if logEnded {
                ticks.removeAll { tick in
                    guard let state = fleet.navigators[tick.navigator], let due = Navigator.nextDueFrame(state) else {
                        return false
                    }
                    return due <= frame
                }
            }
            try body(frame, applied, ticks)
            if logEnded {
                // Carry on only while some navigator still had frames the daemon closed.
                let live = fleet.active.contains { name in
                    guard let state = fleet.navigators[name] else { return false }
                    if state.ended.contains(where: { $0.endFrame > frame }) { return true }
                    guard let due = Navigator.nextDueFrame(state) else { return false }
                    return due > frame + 1
                }
                guard live else { return }
                frame += 1
            } else if fleet.active.isEmpty {
                frame = max(frame + 1, events[next].frame)
            } else {
                frame += 1
            }
        }
    }
}
