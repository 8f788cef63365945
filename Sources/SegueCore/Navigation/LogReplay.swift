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
    package typealias FrameBody = (_ frame: Int64, _ events: [EventRecord], _ ticks: [Tick]) throws -> Void

    package private(set) var fleet: Fleet
    private let stopBefore: Int64
    private var events: [EventRecord]
    /// The next frame to close; nil before the first event.
    private var frame: Int64?
    /// Events read but not applied yet: those of `frame` (the log's frames never go back, so a
    /// frame is closed once an event of a later one is read, and the log has not ended there).
    private var waiting: [EventRecord] = []
    /// Set once `stopBefore` is reached: later events change nothing.
    private var stopped = false

    /// `presentationDelay` (ns): the daemon's, which its ticks' `presentAt` carried; the log does not
    /// record it.
    package init(events: [EventRecord], clock: FrameClock, stopBefore: Int64 = .max, presentationDelay: Int64 = 0) {
        self.events = events
        self.stopBefore = stopBefore
        fleet = Fleet(clock: clock)
        fleet.presentationDelay = presentationDelay
    }

    /// A replay fed one event at a time (`add`, then `finish`), holding only the events of one frame:
    /// a log of any length replays in the memory of its state.
    package init(clock: FrameClock, stopBefore: Int64 = .max, presentationDelay: Int64 = 0) {
        self.init(events: [], clock: clock, stopBefore: stopBefore, presentationDelay: presentationDelay)
    }

    /// Calls `body` for every frame visited, in order, with the events that took effect in it (those
    /// applied just before its ticks, each with the digest of the state it left) and its ticks.
    package mutating func run(_ body: FrameBody) throws {
        let events = self.events
        self.events = []
        for event in events { try add(event, body) }
        try finish(body)
    }

    /// Takes the log's next event, first closing (through `body`) every frame before its own that
    /// the daemon visited.
    package mutating func add(_ event: EventRecord, _ body: FrameBody) throws {
        guard !stopped else { return }
        guard var current = frame else {
            frame = event.frame
            waiting.append(event)
            return
        }
        while current < event.frame {
            guard current < stopBefore else {
                stopped = true
                return
            }
            try close(current, logEnded: false, body)
            // Idle: the daemon's loop slept until the next event's frame.
            current = fleet.active.isEmpty ? event.frame : current + 1
            frame = current
        }
        waiting.append(event)
    }

    /// After the last event: closes its frame, then those the daemon closed while some navigator
    /// still moved.
    package mutating func finish(_ body: FrameBody) throws {
        guard !stopped, var current = frame else { return }
        stopped = true
        while current < stopBefore {
            try close(current, logEnded: true, body)
            guard fleet.active.contains(where: { stillTicks($0, after: current) }) else { return }
            current += 1
        }
    }

    /// Applies the waiting events of `frame` and earlier, closes it, and hands it to `body`.
    private mutating func close(_ frame: Int64, logEnded: Bool, _ body: FrameBody) throws {
        var applied: [EventRecord] = []
        var ticks: [Tick] = []
        var taken = 0
        let waiting = self.waiting
        try fleet.closeFrame(
            frame,
            advance: { fleet throws(CoreError) in
                while taken < waiting.count, waiting[taken].frame <= frame {
                    applied.append(try fleet.apply(waiting[taken]))
                    taken += 1
                }
            },
            tick: { ticks.append($0) })
        self.waiting.removeFirst(taken)
        if logEnded { ticks.removeAll { wouldHaveLogged($0.navigator, by: frame) } }
        try body(frame, applied, ticks)
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
