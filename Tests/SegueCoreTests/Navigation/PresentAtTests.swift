import Testing

@testable import SegueCore

/// `presentAt`: every tick's frame instant plus the fleet's presentation delay, live and in replay.
@Suite struct PresentAtTests {
    static let clock = try! FrameClock(rate: 60)

    /// A push and a pop, closed frame by frame on a fleet with `delay`.
    static func live(delay: Int64) -> (records: [EventRecord], ticks: [Tick]) {
        var fleet = Fleet(clock: clock)
        fleet.presentationDelay = delay
        var frame = clock.frame(atOrAfter: 1_000_000_000_000)
        var records: [EventRecord] = []
        var ticks: [Tick] = []
        let steps: [NavigationCommand] = [
            .create(root: ScreenSpec(name: "Home"), config: NavigatorConfig()),
            .push(ScreenSpec(name: "Detail"), TransitionOptions(animator: ["duration": 0.1])),
            .pop(TransitionOptions(animator: ["duration": 0.1, "curve": "linear"])),
        ]
        for command in steps {
            let execution = fleet.execute(command, .init(), navigator: "main", time: clock.instant(ofFrame: frame))
            precondition(execution.error == nil)
            records += execution.clockEvents + execution.events
            for _ in 0..<10 {
                let closed = fleet.closeFrame(frame)
                records += closed.events
                ticks += closed.ticks
                frame += 1
            }
        }
        return (records, ticks)
    }

    @Test(arguments: [0, 16_666_667, 50_000_000, 2_000_000_000] as [Int64])
    func presentAtIsTheFrameInstantPlusTheDelayAndReplayGivesItAgain(delay: Int64) throws {
        let (records, ticks) = Self.live(delay: delay)
        #expect(ticks.count == 14)
        for tick in ticks {
            #expect(tick.presentAt == tick.time + delay)
            #expect(tick.json["presentAt"] == .int(tick.time + delay))
            // Right after `time`, in the encoder's bytes as in the tree's.
            #expect(
                tick.json.objectValue?.keys.prefix(6) == [
                    "navigator", "transition", "operation", "frame", "time", "presentAt",
                ])
            #expect(tick.encoded() == tick.json.serializedBytes())
        }
        var replay = LogReplay(events: records, clock: Self.clock, presentationDelay: delay)
        var replayed: [Tick] = []
        try replay.run { _, _, ticks in replayed += ticks }
        #expect(replayed.map { $0.encoded() } == ticks.map { $0.encoded() })
        // Another delay changes presentAt and nothing else.
        var other = LogReplay(events: records, clock: Self.clock, presentationDelay: delay + 1)
        var shifted: [Tick] = []
        try other.run { _, _, ticks in shifted += ticks }
        #expect(shifted.map(\.presentAt) == ticks.map { $0.presentAt + 1 })
        #expect(
            shifted.map {
                var t = $0
                t.presentationDelay = delay
                return t.encoded()
            } == ticks.map { $0.encoded() })
    }
}
