@testable import SegueCore

/// Given/when/then helpers for decider tests: build a state by folding events, decide a command,
/// and compare whole event lists and whole states.
enum Fixture {
    static let clock = try! FrameClock(rate: 60)
    static let name = "main"

    static func screen(_ n: Int, _ route: String) -> Screen { Screen(id: "s\(n)", name: route) }

    static func config(_ edit: (inout NavigatorConfig) -> Void = { _ in }) -> NavigatorConfig {
        var c = NavigatorConfig()
        edit(&c)
        return c
    }

    /// Folds `events` over the initial state.
    static func given(_ events: [NavigationEvent]) -> NavigatorState {
        Navigator.fold(name: name, clock: clock, events)
    }

    /// Decides `command` at `frame` after advancing the clock to it, as the daemon does.
    static func when(
        _ state: NavigatorState, _ command: NavigationCommand, at frame: Int64, _ envelope: CommandEnvelope = .init()
    ) -> (events: [NavigationEvent], state: NavigatorState, error: CoreError?) {
        var s = state
        let clockEvents = Navigator.advance(s, toFrame: frame)
        for e in clockEvents { s = Navigator.evolve(s, e) }
        do {
            let events = try Navigator.decide(command, envelope, state: s, frame: frame)
            return (clockEvents + events, events.reduce(s, Navigator.evolve), nil)
        } catch {
            return (clockEvents, s, error)
        }
    }

    /// Runs a script of commands, asserting each succeeds, returning the full log.
    static func log(_ steps: [(NavigationCommand, Int64)], config: NavigatorConfig = NavigatorConfig())
        -> [NavigationEvent]
    {
        var events: [NavigationEvent] = []
        var state = given([])
        let all = [(NavigationCommand.create(root: ScreenSpec(name: "Home"), config: config), Int64(0))] + steps
        for (command, frame) in all {
            let r = when(state, command, at: frame)
            precondition(r.error == nil, "\(command) failed: \(r.error!)")
            events += r.events
            state = r.state
        }
        return events
    }

    static func created(_ config: NavigatorConfig = NavigatorConfig(), frame: Int64 = 0) -> NavigationEvent {
        NavigationEvent(
            frame: frame, command: nil, kind: .created(root: screen(1, "Home"), config: config, frameRate: 60))
    }

    static func started(
        _ id: Int, _ op: TransitionOperation, from: Screen, to: Screen, popped: [Screen] = [], stack: [Screen],
        modals: [Screen] = [], animator: Animator = .default, animated: Bool = true, interactive: Bool = false,
        owner: String? = nil, next: Int, frame: Int64, command: String? = nil
    ) -> NavigationEvent {
        NavigationEvent(
            frame: frame, command: command,
            kind: .started(
                .init(
                    transition: id, operation: op, from: from, to: to, popped: popped, stack: stack, modals: modals,
                    animator: animator, animated: animated, interactive: interactive, owner: owner, nextScreen: next)))
    }

    static func event(_ kind: NavigationEvent.Kind, at frame: Int64, command: String? = nil) -> NavigationEvent {
        NavigationEvent(frame: frame, command: command, kind: kind)
    }

    /// Frames the default animator (0.35 s) takes at 60 Hz.
    static let defaultFrames = FrameClock.wholeFrames(Animator.default.effectiveDuration * 60)
}
