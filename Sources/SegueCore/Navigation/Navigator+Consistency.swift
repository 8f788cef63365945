extension Navigator {
    /// Why `event` cannot follow `state` in a log the daemon wrote, or `nil`.
    ///
    /// `evolve` trusts every event, as a rebuild must: events carry their effects (a started
    /// transition its target stack), so a hand-edited log folds without complaint into a state no
    /// command ever produced (a screen nobody pushed, a transition completed that never started).
    /// `segue verify` and `segue import` ask this first. The rules are what every decided event keeps:
    /// a navigator exists from `navigator.created` until `navigator.closed`; an event about a
    /// transition names the one in flight; a transition starts only when none is in flight, from a
    /// screen on the navigator, towards screens that are either already there (the same screen) or
    /// new ones numbered from the navigator's screen counter, which only grows; navigator and route
    /// names follow the name rule, as every command's do.
    package static func inconsistency(of event: NavigationEvent, after state: NavigatorState) -> String? {
        let name = state.name
        if case .created(let root, _, _) = event.kind {
            // No command can name a navigator or route outside the rule: one imported would be
            // listed and never reached.
            guard NavigatorName.isValid(name) else {
                return "navigator.created for \(Self.quoted(name)), not a navigator name ([A-Za-z0-9._-]{1,64})."
            }
            guard ScreenSpec.isValidName(root.name) else { return Self.badRoute(root, "navigator.created for \(name)") }
            return state.status == .absent ? nil : "navigator.created for \(name), which already exists."
        }
        switch state.status {
        case .absent: return "\(event.type) for \(name) before its navigator.created."
        case .closed: return "\(event.type) for \(name) after its navigator.closed."
        case .open: break
        }
        switch event.kind {
        case .created, .closed, .queued, .dropped:
            return nil
        case .started(let started):
            return startInconsistency(started, after: state)
        case .updated(let id, _, _, _, _), .interrupted(let id, _, _, _), .finishing(let id, _, _, _, _),
            .cancelling(let id, _, _, _, _, _), .completed(let id), .cancelled(let id, _),
            .reversed(let id, _, _, _), .paused(let id, _), .seeked(let id, _, _), .resumed(let id, _):
            guard let t = state.transition else {
                return "\(event.type) of transition \(id) on \(name), which has no transition in flight."
            }
            return t.id == id
                ? nil : "\(event.type) of transition \(id) on \(name), whose transition in flight is \(t.id)."
        }
    }

    private static func startInconsistency(_ e: NavigationEvent.Started, after state: NavigatorState) -> String? {
        let name = state.name
        if let t = state.transition {
            return "transition.started \(e.transition) on \(name) while transition \(t.id) is in flight."
        }
        guard e.nextScreen >= state.nextScreenNumber else {
            return "transition.started \(e.transition) on \(name) turns the screen counter back from "
                + "\(state.nextScreenNumber) to \(e.nextScreen)."
        }
        let present = state.stack + state.modals
        guard present.contains(e.from) else {
            return "transition.started \(e.transition) on \(name) starts from \(e.from.id) (\(e.from.name)), "
                + "which is not on the navigator."
        }
        for screen in e.stack + e.modals + [e.to] where !present.contains(screen) {
            if let existing = present.first(where: { $0.id == screen.id }) {
                return "transition.started \(e.transition) on \(name) changes screen \(screen.id) "
                    + "(\(existing.name) on the navigator, \(screen.name) in the event)."
            }
            guard let number = Int(screen.id.dropFirst()), screen.id.first == "s",
                (state.nextScreenNumber..<e.nextScreen).contains(number)
            else {
                return "transition.started \(e.transition) on \(name) shows screen \(screen.id) (\(screen.name)), "
                    + "neither on the navigator nor a new one (new screens are s\(state.nextScreenNumber) to "
                    + "s\(e.nextScreen - 1))."
            }
            guard ScreenSpec.isValidName(screen.name) else {
                return badRoute(screen, "transition.started \(e.transition) on \(name)")
            }
        }
        return nil
    }

    private static func badRoute(_ screen: Screen, _ event: String) -> String {
        "\(event) shows screen \(screen.id) of route \(quoted(screen.name)), not a route name ([A-Za-z0-9._-]{1,64})."
    }

    /// A name as it was written, quoted, so that an empty or spaced one shows.
    private static func quoted(_ name: String) -> String { JSON.string(name).serialized() }
}
