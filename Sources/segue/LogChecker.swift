import SegueCore

/// Folds a log, event by event, through the navigation core as a daemon's rebuild would, and keeps
/// what is wrong with it: a seq or revision gap, an event the core cannot read, a frame going back,
/// an event that cannot follow its navigator's state (`Navigator.inconsistency`).
/// `verify` runs it over a log; `import` runs it over the data dir's log followed by the file, and
/// writes nothing unless it comes out clean, so an import can never leave a log segued refuses.
///
/// Streams: only the first `LogSource.rateSample` events are held (the frame rate is inferred from
/// them), so checking a long data dir before an import costs the navigators' state, not the log's size.
struct LogChecker {

    /// What a problem about something this build does not know asks, of a file and of a log.
    static let newerFile = "was it exported by a newer segue?"
    static let newerLog = "was it written by a newer segued?"

    private(set) var problems: [String] = []
    private(set) var count = 0
    /// Each with its line in the file it was read from (nil for a data dir's or a database's).
    private var pending: [(line: Int?, event: EventRecord)] = []
    private var fleet: Fleet?
    private var lastFrame = Int64.min
    /// After the first event the core refuses, the state is no longer the log's: stop folding.
    private var stopped = false

    var navigators: Int { fleet?.navigators.count ?? 0 }

    mutating func add(_ event: EventRecord, line: Int? = nil) {
        count += 1
        guard fleet == nil else { return apply(event, line: line) }
        pending.append((line, event))
        if pending.count >= LogSource.rateSample { startFolding() }
    }

    /// Folds what is still held; call once after the last event.
    mutating func finish() {
        if fleet == nil { startFolding() }
    }

    private mutating func startFolding() {
        guard let rate = LogSource.inferFrameRate(pending.map(\.event)) ?? (pending.isEmpty ? 60 : nil) else {
            problems.append("The events' frames and times fit no frame rate from 1 to 1000 Hz.")
            stopped = true
            fleet = Fleet(clock: try! FrameClock(rate: 60))
            pending = []
            return
        }
        fleet = Fleet(clock: try! FrameClock(rate: rate))
        let held = pending
        pending = []
        for (line, event) in held { apply(event, line: line) }
    }

    /// A problem with `event`, said with its line when it was read from a file (`Line 5 (seq 6): …`,
    /// as the file's own problems are), else as written (it names the event).
    private mutating func report(_ problem: String, _ event: EventRecord, line: Int?) {
        problems.append(line.map { "Line \($0) (seq \(event.seq)): \(problem)" } ?? problem)
    }

    private mutating func apply(_ event: EventRecord, line: Int?) {
        guard !stopped else { return }
        if event.frame < lastFrame {
            report("Event \(event.seq) goes back to frame \(event.frame) from \(lastFrame).", event, line: line)
        }
        lastFrame = max(lastFrame, event.frame)
        do {
            // The core's rules for what may follow what (a hand-edited event can fold cleanly into a
            // state no command produced), then the fold itself (gaps, unreadable events).
            // A gap is reported by the fold, as the more basic fault.
            let state = fleet!.state(of: event.navigator)
            if event.seq == fleet!.lastSeq + 1, event.revision == state.revision + 1 {
                let decoded: NavigationEvent
                do { decoded = try NavigationEvent(record: event) } catch {
                    // Said with where the event is, and, for something this build does not know,
                    // where it may come from.
                    let place = line.map { "Line \($0) (seq \(event.seq))" } ?? "Event \(event.seq)"
                    let question = line == nil ? Self.newerLog : Self.newerFile
                    problems.append("\(place): \(error.message(askingIfUnknown: question))")
                    stopped = true
                    return
                }
                if let problem = Navigator.inconsistency(of: decoded, after: state) {
                    report(line == nil ? "Event \(event.seq): \(problem)" : problem, event, line: line)
                    stopped = true
                    return
                }
            }
            try fleet!.apply(event)
        } catch {
            report(error.message, event, line: line)
            stopped = true
        }
    }
}
