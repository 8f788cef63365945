import SegueCore

/// Folds a log, event by event, through the navigation core as a daemon's rebuild would, and keeps
/// what is wrong with it: a seq or revision gap, an event the core cannot read, a frame going back,
/// an event that cannot follow its navigator's state (`Navigator.inconsistency`).
/// `verify` runs it over a log; `import` runs it over the data dir's log followed by the file, and
/// writes nothing unless it comes out clean, so an import can never leave a log segued refuses.
///
/// Streams: only the first `rateSample` events are held (the frame rate is inferred from them), so
/// checking a long data dir before an import costs the navigators' state, not the log's size.
struct LogChecker {
    static let rateSample = 200

    private(set) var problems: [String] = []
    private(set) var count = 0
    private var pending: [EventRecord] = []
    private var fleet: Fleet?
    private var lastFrame = Int64.min
    /// After the first event the core refuses, the state is no longer the log's: stop folding.
    private var stopped = false

    var navigators: Int { fleet?.navigators.count ?? 0 }

    mutating func add(_ event: EventRecord) {
        count += 1
        guard fleet == nil else { return apply(event) }
        pending.append(event)
        if pending.count >= Self.rateSample { startFolding() }
    }

    /// Folds what is still held; call once after the last event.
    mutating func finish() {
        if fleet == nil { startFolding() }
    }

    private mutating func startFolding() {
        guard let rate = LogSource.inferFrameRate(pending) ?? (pending.isEmpty ? 60 : nil) else {
            problems.append("The events' frames and times fit no frame rate from 1 to 1000 Hz.")
            stopped = true
            fleet = Fleet(clock: try! FrameClock(rate: 60))
            pending = []
            return
        }
        fleet = Fleet(clock: try! FrameClock(rate: rate))
        let held = pending
        pending = []
        for event in held { apply(event) }
    }

    private mutating func apply(_ event: EventRecord) {
        guard !stopped else { return }
        if event.frame < lastFrame {
            problems.append("Event \(event.seq) goes back to frame \(event.frame) from \(lastFrame).")
        }
        lastFrame = max(lastFrame, event.frame)
        do {
            // The core's rules for what may follow what (a hand-edited event can fold cleanly into a
            // state no command produced), then the fold itself (gaps, unreadable events).
            // A gap is reported by the fold, as the more basic fault.
            let state = fleet!.state(of: event.navigator)
            if event.seq == fleet!.lastSeq + 1, event.revision == state.revision + 1,
                let decoded = try? NavigationEvent(record: event),
                let problem = Navigator.inconsistency(of: decoded, after: state)
            {
                problems.append("Event \(event.seq): \(problem)")
                stopped = true
                return
            }
            try fleet!.apply(event)
        } catch {
            problems.append(error.message)
            stopped = true
        }
    }
}
