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

    static func run(_ inv: Invocation, log path: String) throws {
        let navigators = Set(inv.parsed.arguments["navigator"] ?? [])
        var speed = try ReplayCommand.speed(inv)
        let events = try LogSource.events(path)
        guard let rate = LogSource.inferFrameRate(events) ?? (events.isEmpty ? 60 : nil) else {
            throw IOFailure("Cannot tell the log's frame rate.")
        }
        let clock = try FrameClock(rate: rate)
        let terminal = !inv.json && Terminal.screenCapable
        var screen = terminal ? WatchScreen(header: "", keys: keys) : nil
        screen?.enter()
        var model = WatchModel(awaited: navigators)
        var fleet = Fleet(clock: clock)
        var pacing = ReplayPacing(clock: clock, speed: speed, maxGap: 2)
        var start = ContinuousClock.now
        var paused = false
        var printer = PipedPrinter(json: inv.json, plain: !terminal && !inv.json)
        func shows(_ name: String) -> Bool { navigators.isEmpty || navigators.contains(name) }
        func title(_ frame: Int64) -> String {
            (paused ? "[paused]  " : "") + "replay \(path)  \(WatchLayout.format(speed))x  frame \(frame)  "
                + "seq \(model.seq)"
        }
        try FrameSource.run(events, clock: clock) { frame, applied, ticks in
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
            // Waits for the frame's time in the replay, reading keys and redrawing meanwhile.
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
        guard var s = screen else {
            Output.error("Replayed \(events.count.counted("event")) at \(rate) Hz.")
            return
        }
        holdTheLastFrame(&s, &model)
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
