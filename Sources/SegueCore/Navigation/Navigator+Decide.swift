extension Navigator {
    /// Decides what a command does to a navigator at `frame`: the events to append, or a rejection.
    ///
    /// Precondition: `state` has been advanced to `frame` (`advance`), so nothing the clock decides at
    /// or before `frame` is pending. All events returned take effect at `frame`.
    package static func decide(
        _ command: NavigationCommand, _ envelope: CommandEnvelope = CommandEnvelope(), state: NavigatorState,
        frame: Int64
    ) throws(CoreError) -> [NavigationEvent] {
        try decideFolding(command, envelope, state: state, frame: frame).events
    }

    /// `decide`, plus the state its events fold to: the decider folds them anyway (to advance a
    /// zero-length segment), so a caller that applies them need not evolve each one again. `each`
    /// sees the state after every event, in order (the fleet digests each one).
    static func decideFolding(
        _ command: NavigationCommand, _ envelope: CommandEnvelope, state: NavigatorState, frame: Int64,
        each: (NavigatorState) -> Void = { _ in }
    ) throws(CoreError) -> (events: [NavigationEvent], state: NavigatorState) {
        let name = state.name
        switch state.status {
        case .absent:
            guard case .create(let root, let config) = command else {
                throw CoreError(
                    .unknownNavigator, "Navigator \(name) does not exist; create it first.")
            }
            // A navigator that does not exist yet is at revision 0: `create` with `expect` 0 means "only if new".
            if let expected = envelope.expect, expected != 0 {
                throw CoreError(
                    .conflict,
                    "Navigator \(name) does not exist yet (revision 0), not the expected \(expected); read its state and retry.",
                    details: ["revision": 0])
            }
            let screen = Screen(id: "s\(state.nextScreenNumber)", name: root.name, params: root.params)
            let created = NavigationEvent(
                frame: frame, command: envelope.requestID,
                kind: .created(root: screen, config: config, frameRate: state.clock.rate))
            var after = state
            apply(created, to: &after)
            each(after)
            return ([created], after)
        case .closed:
            if case .create = command {
                throw CoreError(
                    .navigatorExists, "Navigator \(name) was closed; names are never reused, so pick another name.")
            }
            throw CoreError(.navigatorClosed, "Navigator \(name) is closed; create a new navigator under another name.")
        case .open:
            break
        }
        if case .create = command {
            throw CoreError(
                .navigatorExists, "Navigator \(name) already exists; use it, or create one under another name.")
        }
        if let expected = envelope.expect, expected != state.revision {
            throw CoreError(
                .conflict,
                "Navigator \(name) is at revision \(state.revision), not the expected \(expected); read its state and retry.",
                details: ["revision": state.revision])
        }
        var decision = Decision(state: state, frame: frame, envelope: envelope)
        var events = try decision.decide(command)
        // One copy of the state, folded in place through every event.
        var after = state
        // Through the index: a bound `event` would be a copy of each (a started one is large).
        for index in events.indices {
            apply(events[index], to: &after)
            each(after)
        }
        // A segment of zero length (finish from 1, cancel from 0) ends in the frame it starts, so the
        // clock's events for this frame follow at once: the state a command leaves is always
        // advanced to its frame, and the tick for this frame sees the end.
        events += advance(&after, toFrame: frame, each: each)
        return (events, after)
    }
}
