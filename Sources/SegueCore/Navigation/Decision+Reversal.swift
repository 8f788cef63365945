/// Turning a clock-driven transition back (docs/design.md, "Reversal and scrubbing"): a `cancel`, or a `pop` or
/// `dismiss` of the very screen a push or present is bringing in.
extension Decision {
    /// `transition.reversed` for `t` at this frame: where its fraction is and how fast it moves.
    func reverse(_ t: Transition, completionSpeed: Double) -> NavigationEvent {
        event(
            .reversed(
                transition: t.id, fraction: t.fraction(at: frame), velocity: motionVelocity(t),
                completionSpeed: completionSpeed))
    }

    /// The rate of a clock-driven transition's fraction at this frame, fraction/s, + toward
    /// completion; 0 when nothing moves it (paused, interactive).
    func motionVelocity(_ t: Transition) -> Double {
        guard t.isClockDriven else { return 0 }
        return t.segment.rate(at: frame) * Double(state.clock.rate)
    }

    /// The reversal a plain `pop` or `dismiss` means, on a navigator created with `retarget`, while the
    /// push or present of the top screen runs toward completion under the `reject` policy (which
    /// would refuse it as `busy`); `nil` for any other command, and without `retarget`. Under `queue`
    /// the command waits its turn. A transition a gesture's owner holds turns back only for that
    /// owner: anyone else's command is refused as `busy`, saying so.
    func reversal(by command: NavigationCommand) throws(CoreError) -> NavigationEvent? {
        guard let t = reversible(by: command) else { return nil }
        if let owner = t.owner, owner != envelope.owner {
            throw CoreError(
                .busy,
                "Transition \(t.id) (\(t.operation.rawValue), \(t.phase.rawValue)) on \(name) is held by owner "
                    + "\"\(owner)\": a \(command.name) turns it back only with that owner; retry when it ends.")
        }
        return reverse(t, completionSpeed: 1)
    }

    /// The transition `command` would turn back, whoever owns it.
    private func reversible(by command: NavigationCommand) -> Transition? {
        guard state.config.retarget, state.config.busy == .reject, state.queue.isEmpty, let t = state.transition
        else { return nil }
        let heading = t.phase == .paused ? t.pausedFrom : t.phase
        guard heading == .animating || heading == .finishing else { return nil }
        switch command {
        case .pop(let options)
        where options == .standard && t.operation == .push && t.popped.isEmpty
            && t.targetStack == state.stack + [t.to] && t.targetModals == state.modals:
            return t
        case .dismiss(let options)
        where options == .standard && t.operation == .present && t.targetModals == state.modals + [t.to]
            && t.targetStack == state.stack:
            return t
        default:
            return nil
        }
    }
}
