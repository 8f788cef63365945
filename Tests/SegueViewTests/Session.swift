import SegueCore

/// A navigation session run through the core as the daemon runs it: each command takes effect at the
/// frame it is given (after the frame before it was closed), and every frame is closed in turn. The
/// frames come out as a replay visits them: the frame's events, then its ticks.
struct Session {
    typealias Frame = (frame: Int64, events: [EventRecord], ticks: [Tick])
    let clock = try! FrameClock(rate: 60)
    let start: Int64 = 100_000
    private(set) var fleet: Fleet
    private(set) var frames: [Frame] = []
    private var next: Int64

    init() {
        fleet = Fleet(clock: clock)
        next = start
    }

    /// Runs `command` for `navigator` at `start + offset` (closing the frames up to it first).
    mutating func run(_ offset: Int64, _ navigator: String, _ command: NavigationCommand, id: String? = nil) {
        let frame = start + offset
        close(through: frame - 1)
        let time = clock.instant(ofFrame: frame - 1) + 1
        let result = fleet.execute(command, CommandEnvelope(requestID: id), navigator: navigator, time: time)
        precondition(result.error == nil, "\(command): \(result.error!)")
        precondition(result.frame == frame)
        pending += result.clockEvents + result.events
    }

    private var pending: [EventRecord] = []

    /// Closes every frame up to `start + offset`.
    mutating func close(through frame: Int64) {
        while next <= frame {
            let closed = fleet.closeFrame(next)
            let events = pending + closed.events
            pending = []
            if !events.isEmpty || !closed.ticks.isEmpty { frames.append((next, events, closed.ticks)) }
            next += 1
        }
    }

    mutating func finish(after offset: Int64) -> [Frame] {
        close(through: start + offset)
        return frames
    }

    static func push(_ name: String, _ animator: JSON? = nil) -> NavigationCommand {
        .push(ScreenSpec(name: name), TransitionOptions(animator: animator))
    }

    static func create(_ config: NavigatorConfig = NavigatorConfig()) -> NavigationCommand {
        .create(root: ScreenSpec(name: "Home"), config: config)
    }
}
