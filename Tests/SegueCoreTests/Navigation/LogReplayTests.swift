import Testing

@testable import SegueCore

/// `LogReplay` closes frames through the same `Fleet.closeFrame` as the daemon's loop, with the log's
/// events in place of the clock's decisions: frame by frame, the ticks are the live ones, byte for
/// byte, and a replay cut short stops before the frame of the first event left out.
@Suite struct LogReplayTests {
    let clock = try! FrameClock(rate: 60)
    let t0: Int64 = 1_000_000_000_000

    /// A live session: two navigators, an animated push, a gesture with updates that times out, and a
    /// push in the middle; each frame closed the daemon's way. Returns the log and the ticks per frame.
    func live() -> (events: [EventRecord], ticks: [Int64: [[UInt8]]]) {
        var fleet = Fleet(clock: clock)
        var events: [EventRecord] = []
        var ticks: [Int64: [[UInt8]]] = [:]
        var config = NavigatorConfig()
        config.interactionTimeout = 0.2
        let start = clock.frame(atOrAfter: t0)
        func run(_ command: NavigationCommand, _ navigator: String, frame: Int64) {
            let time = clock.instant(ofFrame: frame) + 1
            let execution = fleet.execute(command, .init(), navigator: navigator, time: time)
            events += execution.clockEvents + execution.events
        }
        run(.create(root: ScreenSpec(name: "Home"), config: config), "a", frame: start)
        run(.create(root: ScreenSpec(name: "Home"), config: config), "b", frame: start)
        run(.push(ScreenSpec(name: "A"), TransitionOptions()), "a", frame: start)
        run(.push(ScreenSpec(name: "B"), TransitionOptions(animated: false)), "b", frame: start)
        for frame in (start + 1)...(start + 60) {
            if frame == start + 5 { run(.begin(.pop, animator: nil), "b", frame: frame - 1) }
            if frame == start + 8 { run(.update(percent: 0.3, velocity: nil), "b", frame: frame - 1) }
            if frame == start + 30 { run(.push(ScreenSpec(name: "C"), TransitionOptions()), "a", frame: frame - 1) }
            fleet.closeFrame(
                frame, advance: { events += $0.advance(toFrame: frame) },
                tick: { ticks[frame, default: []].append($0.encoded()) })
        }
        #expect(fleet.active.isEmpty)
        #expect(events.contains { $0.type == "transition.cancelled" }, "the gesture timed out")
        return (events, ticks)
    }

    @Test func aReplayGivesTheLiveTicksFrameByFrame() throws {
        let (events, live) = live()
        var replayed: [Int64: [[UInt8]]] = [:]
        var seen: [EventRecord] = []
        var replay = LogReplay(events: events, clock: clock)
        try replay.run { frame, applied, ticks in
            seen += applied
            if !ticks.isEmpty { replayed[frame] = ticks.map { $0.encoded() } }
        }
        #expect(seen == events)
        #expect(replayed == live)
        #expect(live.values.joined().count > 60)
    }

    @Test func aReplayCutShortStopsBeforeTheFirstEventLeftOut() throws {
        let (events, live) = live()
        let cut = events.firstIndex { $0.type == "transition.started" && $0.navigator == "a" && $0.seq > 6 }!
        let stopBefore = events[cut].frame
        var frames: [Int64] = []
        var replay = LogReplay(events: Array(events[..<cut]), clock: clock, stopBefore: stopBefore)
        try replay.run { frame, _, ticks in
            frames.append(frame)
            #expect(ticks.map { $0.encoded() } == live[frame] ?? [], "frame \(frame)")
        }
        #expect(frames.last.map { $0 < stopBefore } == true)
    }
}
