import SegueCore
import SegueProtocol
import Testing

/// The daemon writes a mutating command's reply without the tree (`CommandReplyWriter`): byte for byte
/// what the tree (`CommandReply.encode`) serializes, for every kind of event and member order.
@Suite struct CommandReplyWriterTests {
    static let clock = try! FrameClock(rate: 60)

    /// The events each command decided, in a navigator that queues while busy: created (a root with
    /// params to escape), started, queued, interrupted, updated, finishing, completed, cancelling.
    static func decided() throws -> [[NavigationEvent]] {
        var config = NavigatorConfig()
        config.busy = .queue
        let commands: [(NavigationCommand, Int64)] = [
            (.create(root: ScreenSpec(name: "Home", params: ["q": "a\"é\n", "n": 1.5]), config: config), 10),
            (.push(ScreenSpec(name: "Detail"), TransitionOptions(animator: ["duration": 0.5])), 12),
            (.push(ScreenSpec(name: "More"), TransitionOptions(animated: false)), 13),
            (.begin(nil, animator: nil), 14),
            (.update(percent: 0.3, velocity: nil), 15),
            (.finish(velocity: 0.7, completionSpeed: 2, completionCurve: .linear), 16),
            (.begin(.pop, animator: nil), 200),
            (.update(percent: 0.1, velocity: nil), 201),
            (.cancel(completionSpeed: 1, completionCurve: .easeInOut), 202),
            (.pop(TransitionOptions(animated: false)), 400),
        ]
        var state = Navigator.initialState(name: "main", clock: clock)
        var all: [[NavigationEvent]] = []
        for (command, frame) in commands {
            for event in Navigator.advance(state, toFrame: frame - 1) { state = Navigator.evolve(state, event) }
            let events = try Navigator.decide(command, state: state, frame: frame)
            for event in events { state = Navigator.evolve(state, event) }
            all.append(events)
        }
        return all
    }

    static func handMade() -> [[NavigationEvent]] {
        let kinds: [[NavigationEvent.Kind]] = [
            [
                .cancelling(
                    transition: 1, fraction: 0, completionSpeed: 1, completionCurve: .easeInOut, reason: .requested),
                .queued(request: .pop(TransitionOptions()), position: 1, transition: 2),
            ],
            [
                .interrupted(transition: 3, fraction: 0.25, owner: nil),
                .updated(transition: 3, percent: 1e-7, velocity: 0),
            ],
            [.reversed(transition: 2, fraction: 0.4, velocity: 2.5, completionSpeed: 1)],
            [
                .paused(transition: 2, fraction: 0.5), .seeked(transition: 2, fraction: 0.25, scrubsLinearly: true),
                .resumed(transition: 2, fraction: 0.25),
            ],
            [],
        ]
        return kinds.map { $0.map { NavigationEvent(frame: 9, command: nil, kind: $0) } }
    }

    @Test(
        arguments: [nil, "r-1", "q\"\\\u{1}"] as [String?],
        [nil, .animating, .interactive, .paused] as [TransitionPhase?])
    func theWriterMatchesTheTree(id: String?, phase: TransitionPhase?) throws {
        let lists = try Self.decided() + Self.handMade()
        #expect(lists.contains { $0.contains { if case .queued = $0.kind { true } else { false } } })
        for events in lists {
            var inFlight: Transition?
            if let phase {
                var state = Navigator.initialState(name: "main", clock: Self.clock)
                for event in lists[0] + lists[1] { state = Navigator.evolve(state, event) }
                var transition = try #require(state.transition)
                transition.phase = phase
                inFlight = transition
            }
            let tree = JSON.object(
                CommandReply.encode(
                    id: id, navigator: "main", revision: 4, seq: 7, frame: 9, events: events, inFlight: inFlight)
            ).serializedBytes()
            let direct = CommandReplyWriter.encode(
                id: id, navigator: "main", revision: 4, seq: 7, frame: 9, events: events, phase: inFlight?.phase)
            #expect(
                String(decoding: direct, as: UTF8.self) == String(decoding: tree, as: UTF8.self),
                "\(events.map(\.kind))")
        }
    }
}
