import Testing

@testable import SegueCore

/// `Navigator.inconsistency`: what `verify` and `import` refuse in a log, although `evolve` would fold
/// it. Every event the decider makes passes (the fuzz corpus checks that across its scripts); these
/// are the hand edits it must catch.
@Suite struct ConsistencyTests {
    typealias F = Fixture
    static let home = F.screen(1, "Home")
    static let list = F.screen(2, "List")

    /// Home → List committed at frame 1, then an animated push of Detail (transition 2) at frame 10.
    static let pushing: NavigatorState = F.given(
        F.log([
            (.push(ScreenSpec(name: "List"), TransitionOptions(animated: false)), 1),
            (.push(ScreenSpec(name: "Detail"), .standard), 10),
        ]))
    static let idle: NavigatorState = F.given(
        F.log([(.push(ScreenSpec(name: "List"), TransitionOptions(animated: false)), 1)]))

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let state: NavigatorState
        let event: NavigationEvent
        let problem: String?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        .init(
            name: "the completion of the transition in flight", state: pushing,
            event: F.event(.completed(transition: 2), at: 31), problem: nil),
        .init(
            name: "a completion of another transition", state: pushing,
            event: F.event(.completed(transition: 77), at: 31),
            problem: "transition.completed of transition 77 on main, whose transition in flight is 2."),
        .init(
            name: "an update with nothing in flight", state: idle,
            event: F.event(.updated(transition: 2, percent: 0.5, velocity: 0), at: 5),
            problem: "interaction.updated of transition 2 on main, which has no transition in flight."),
        .init(
            name: "a push decided as the daemon would", state: idle,
            event: F.started(
                2, .push, from: list, to: F.screen(3, "Detail"), stack: [home, list, F.screen(3, "Detail")], next: 4,
                frame: 5),
            problem: nil),
        .init(
            name: "a ghost screen in the target stack", state: idle,
            event: F.started(
                2, .push, from: list, to: F.screen(3, "Detail"),
                stack: [home, list, F.screen(3, "Detail"), F.screen(99, "Ghost")], next: 4, frame: 5),
            problem: "transition.started 2 on main shows screen s99 (Ghost), neither on the navigator nor a new one "
                + "(new screens are s3 to s3)."),
        .init(
            name: "an existing screen renamed", state: idle,
            event: F.started(
                2, .pop, from: list, to: F.screen(1, "Away"), stack: [F.screen(1, "Away")], next: 3, frame: 5),
            problem: "transition.started 2 on main changes screen s1 (Home on the navigator, Away in the event)."),
        .init(
            name: "a start from a screen that is not there", state: idle,
            event: F.started(2, .pop, from: F.screen(7, "Nowhere"), to: home, stack: [home], next: 3, frame: 5),
            problem: "transition.started 2 on main starts from s7 (Nowhere), which is not on the navigator."),
        .init(
            name: "a start while another is in flight", state: pushing,
            event: F.started(3, .pop, from: list, to: home, stack: [home], next: 4, frame: 12),
            problem: "transition.started 3 on main while transition 2 is in flight."),
        .init(
            name: "the screen counter going back", state: idle,
            event: F.started(2, .pop, from: list, to: home, stack: [home], next: 2, frame: 5),
            problem: "transition.started 2 on main turns the screen counter back from 3 to 2."),
        .init(
            name: "an event before the navigator exists", state: F.given([]),
            event: F.event(.completed(transition: 1), at: 5),
            problem: "transition.completed for main before its navigator.created."),
        .init(
            name: "a second creation", state: idle, event: F.created(frame: 5),
            problem: "navigator.created for main, which already exists."),
        .init(
            name: "a navigator name no command can give",
            state: Navigator.fold(name: "bad name!", clock: F.clock, []), event: F.created(frame: 5),
            problem: #"navigator.created for "bad name!", not a navigator name ([A-Za-z0-9._-]{1,64})."#),
        .init(
            name: "a root with an empty route", state: F.given([]),
            event: F.event(.created(root: F.screen(1, ""), config: NavigatorConfig(), frameRate: 60), at: 5),
            problem:
                #"navigator.created for main shows screen s1 of route "", not a route name ([A-Za-z0-9._-]{1,64})."#),
        .init(
            name: "a new screen of a route no command can name", state: idle,
            event: F.started(
                2, .push, from: list, to: F.screen(3, "De tail"), stack: [home, list, F.screen(3, "De tail")], next: 4,
                frame: 5),
            problem: #"transition.started 2 on main shows screen s3 of route "De tail", not a route name "#
                + "([A-Za-z0-9._-]{1,64})."),
        .init(
            name: "anything after the close", state: Navigator.evolve(idle, F.event(.closed, at: 6)),
            event: F.event(.completed(transition: 1), at: 7),
            problem: "transition.completed for main after its navigator.closed."),
    ]

    @Test(arguments: cases)
    func judges(c: Case) {
        #expect(Navigator.inconsistency(of: c.event, after: c.state) == c.problem)
    }

    /// Every event of a decided log is consistent with the state before it.
    @Test func aDecidedLogIsConsistentThroughout() {
        let log = F.log([
            (.push(ScreenSpec(name: "List"), TransitionOptions(animated: false)), 1),
            (.present(ScreenSpec(name: "Sheet"), .standard), 10),
            (.dismiss(.standard), 60),
            (.setStack([.idOrName("s1"), .new(ScreenSpec(name: "Other"))], TransitionOptions(animated: false)), 100),
            (.popToRoot(.standard), 110),
        ])
        var state = F.given([])
        for event in log {
            #expect(Navigator.inconsistency(of: event, after: state) == nil, "\(event.type)")
            state = Navigator.evolve(state, event)
        }
    }
}
