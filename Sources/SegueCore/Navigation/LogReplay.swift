/// Regenerates, from a recorded log, the ticks the daemon published: the same `Fleet` the daemon
/// runs, each frame closed by the same `Fleet.closeFrame`, with the log's events in place of the
/// clock's decisions.
///
/// The daemon's frame loop visits frames only while some navigator is active, so idle stretches are
/// skipped to the next event's frame here.
///
/// After the last event the daemon stopped at some unknown frame; a navigator's ticks continue only
/// until the frame at which it would have logged its next clock event (`Navigator.nextDueFrame`),
/// since that event is missing, so the daemon never closed that frame.
///
/// A replay cut short stops before `stopBefore`, the frame of the first event left out: from that
/// frame on, what the daemon published showed that event, which this replay does not have.
package struct LogReplay {
    package private(set) var fleet: Fleet
    private let events: [EventRecord]
    private let stopBefore: Int64

    /// `presentationDelay` (ns): the daemon's, which its ticks' `presentAt` carried; the log does not
    /// record it.
    package init(events: [EventRecord], clock: FrameClock, stopBefore: Int64 = .max, presentationDelay: Int64 = 0) {
        self.events = events
        self.stopBefore = stopBefore
        fleet = Fleet(clock: clock)
        fleet.presentationDelay = presentationDelay
    }

    /// Calls `body` for every frame visited, in order, with the events that took effect in it (those
    /// applied just before its ticks, each with the digest of the state it left) and its ticks.
    package mutating func run(_ body: (_ frame: Int64, _ events: [EventRecord], _ ticks: [Tick]) throws -> Void) throws {
        let events = self.events
        guard let first = events.first else { return }
        var frame = first.frame
        var next = 0
        while frame < stopBefore {
            var applied: [EventRecord] = []
            var ticks: [Tick] = []
            try fleet.closeFrame(
                frame,
                advance: { fleet throws(CoreError) in
                    while next < events.count, events[next].frame <= frame {
                        applied.append(try fleet.apply(events[next]))
                        next += 1
                    }
                },
                tick: { ticks.append($0) })
            let logEnded = next == events.count
            if logEnded { ticks.removeAll { wouldHaveLogged($0.navigator, by: frame) } }
            try body(frame, applied, ticks)
            if logEnded {
                // Carry on only while some navigator still had frames the daemon closed.
                guard fleet.active.contains(where: { stillTicks($0, after: frame) }) else { return }
                frame += 1
            } else if fleet.active.isEmpty {
                frame = max(frame + 1, events[next].frame)
            } else {
                frame += 1
            }
        }
    }

    /// Whether `navigator`'s next clock event, missing from the log, falls due by `frame`.
    private func wouldHaveLogged(_ navigator: String, by frame: Int64) -> Bool {
        guard let state = fleet.navigators[navigator], let due = Navigator.nextDueFrame(state) else { return false }
        return due <= frame
    }

    /// Whether `navigator` has frames after `frame` that the daemon closed: a final tick still to
    /// come, or a transition whose next clock event is more than a frame away.
    private func stillTicks(_ navigator: String, after frame: Int64) -> Bool {
        guard let state = fleet.navigators[navigator] else { return false }
        if state.ended.contains(where: { $0.endFrame > frame }) { return true }
        guard let due = Navigator.nextDueFrame(state) else { return false }
        return due > frame + 1
    }
}
