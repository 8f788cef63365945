import Foundation
import SegueClient
import SegueCommandLine
import SegueCore
import SegueProtocol

/// `segue watch --replay LOG`: the view of a recorded log, frame by frame at the speed it was
/// recorded (or `--speed`), from the same frame path as `segue replay`. Space pauses, `.` steps one
/// frame while paused, `+` and `-` double and halve the speed, q quits. Piped, it prints the lines
/// a live view prints.
enum WatchReplay {
    static let keys = "space pauses · . steps · +/- speed · j/k scroll · / filters · q quits"

    /// Reads the log once, an event at a time: the first `LogSource.rateSample` events are held
    /// until they tell the frame rate, then each goes to the view as it is read.
    static func run(_ inv: Invocation, log path: String) throws {
        // Checked before the log is read, so a typo fails at once even on a big log.
        let speed = try ReplayCommand.speed(inv)
        var view: View?
        var sample: [EventRecord] = []
        var count = 0
        // Every name the log holds, for a navigator asked for that it never creates.
        var names = Set<String>()
        func start() throws -> View {
            guard let rate = LogSource.inferFrameRate(sample) ?? (sample.isEmpty ? 60 : nil) else {
                throw IOFailure("Cannot tell the log's frame rate.")
            }
            let view = try View(inv, path: path, clock: FrameClock(rate: rate), speed: speed)
            // A sample event the view cannot fold is placed by its seq, as forEachEvent places any.
            for event in sample { try view.add(event) }
            sample = []
            return view
        }
        var finished: View?
        do {
            try LogSource.forEachEvent(path) { _, event in
                count += 1
                names.insert(event.navigator)
                if let view { return try view.add(event) }
                sample.append(event)
                if sample.count == LogSource.rateSample { view = try start() }
            } atEnd: {
                // As replay, timeline and view refuse one: an empty view that exits 0 looks as if it worked.
                guard count > 0 else {
                    throw Refusal(.invalidArgument, "\(path) holds no events: there is nothing to watch.")
                }
                let replay = try view ?? start()
                view = replay
                try replay.finish()
                finished = replay
            }
            // A misspelt name showed nothing, and said so only as a count: refused as replay refuses it.
            if let missing = finished?.navigators.sorted().first(where: { !names.contains($0) }) {
                throw LogSource.unknownNavigator(missing, names: names, path)
            }
        } catch {
            // A line found bad after the view began: said on the terminal's own screen, not the view's.
            if view?.screen != nil { Terminal.leave() }
            throw error
        }
        guard let replay = finished else { return }
        guard var s = replay.screen else {
            Output.error("Replayed \(count.counted("event")) at \(replay.clock.rate) Hz.")
            return
        }
        var model = replay.model
        holdTheLastFrame(&s, &model)
    }

    /// The view as the replay moves it, frame by frame.
    final class View {
        let path: String
        let clock: FrameClock
        let navigators: Set<String>
        var speed: Double
        var screen: WatchScreen?
        var model: WatchModel
        var fleet: Fleet
        var pacing: ReplayPacing
        var start = ContinuousClock.now
        var paused = false
        var printer: PipedPrinter
        var replay: LogReplay

        init(_ inv: Invocation, path: String, clock: FrameClock, speed: Double) {
            self.path = path
            self.clock = clock
            self.speed = speed
            navigators = Set(inv.parsed.arguments["navigator"] ?? [])
            let terminal = !inv.json && Terminal.screenCapable
            screen = terminal ? WatchScreen(header: "", keys: keys) : nil
            model = WatchModel(awaited: navigators)
            fleet = Fleet(clock: clock)
            pacing = ReplayPacing(clock: clock, speed: speed, maxGap: 2)
            printer = PipedPrinter(json: inv.json, plain: !terminal && !inv.json)
            replay = LogReplay(clock: clock)
            screen?.enter()
        }

        func add(_ event: EventRecord) throws { try replay.add(event, show) }

        func finish() throws { try replay.finish(show) }

        func shows(_ name: String) -> Bool { navigators.isEmpty || navigators.contains(name) }

        func title(_ frame: Int64) -> String {
            (paused ? "[paused]  " : "") + "replay \(path)  \(WatchLayout.format(speed))x  frame \(frame)  "
                + "seq \(model.seq)"
        }

        /// Shows one frame, then waits for its time in the replay, reading keys and redrawing meanwhile.
        func show(_ frame: Int64, _ applied: [EventRecord], _ ticks: [Tick]) throws {
            for e in applied {
                try fleet.apply(e)
                guard shows(e.navigator) else { continue }
                model.heard(seq: e.seq)
                printer.event(e) { nil }
            }
            for name in Set(applied.map(\.navigator)) where shows(name) {
                if let state = fleet.navigators[name] { model.set(state, frame: frame) }
            }
            for tick in ticks where shows(tick.navigator) {
                guard let json = tick.json.objectValue else { continue }
                model.apply(tick: json)
                if let published = try? PublishedTick(tick.json, bytes: tick.json.serializedBytes()) {
                    printer.tick(published)
                }
            }
            guard var s = screen else { return }
            let due = start + .nanoseconds(pacing.offset(of: frame))
            s.changed()
            while true {
                s.header = title(frame)
                s.draw(model)
                let action = s.handleKeys(model)
                switch action {
                case .quit: exit(0)
                case .pause:
                    paused.toggle()
                    if !paused { (pacing, start) = reanchor(clock, speed, frame) }
                case .step where paused:
                    s.changed()
                    screen = s
                    return
                case .faster, .slower:
                    let faster = action == .faster
                    speed = faster ? min(64, speed * 2) : max(1.0 / 64, speed / 2)
                    (pacing, start) = reanchor(clock, speed, frame)
                default: break
                }
                if !paused, ContinuousClock.now >= due { break }
                GestureCommands.sleep(until: min(due, ContinuousClock.now + .milliseconds(8)))
            }
            screen = s
        }
    }

    /// After the last frame the view stays, as it ended, until q.
    static func holdTheLastFrame(_ s: inout WatchScreen, _ model: inout WatchModel) {
        model.notice = "the replay is over: q quits"
        s.changed()
        while s.handleKeys(model) != .quit {
            s.draw(model)
            usleep(16_000)
        }
    }

    /// Pacing that continues from `frame` as of now (after a pause or a change of speed).
    static func reanchor(_ clock: FrameClock, _ speed: Double, _ frame: Int64) -> (
        ReplayPacing, ContinuousClock.Instant
    ) {
        var pacing = ReplayPacing(clock: clock, speed: speed, maxGap: 2)
        _ = pacing.offset(of: frame)
        return (pacing, ContinuousClock.now)
    }
}
