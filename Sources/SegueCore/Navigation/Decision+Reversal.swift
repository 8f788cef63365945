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
    /// would refuse it as `busy`); `nil` for any other command, without `retarget`, or when the
    /// transition belongs to a gesture's owner. Under `queue` the command waits its turn.
    func reversal(by command: NavigationCommand) -> NavigationEvent? {
        guard state.config.retarget, state.config.busy == .reject, state.queue.isEmpty, let t = state.transition,
            t.owner == nil || t.owner == envelope.owner
        else { return nil }
        let heading = t.phase == .paused ? t.pausedFrom : t.phase
        guard heading == .animating || heading == .finishing else { return nil }
        switch command {
        case .pop(let options)
        where options == .standard && t.operation == .push && t.popped.isEmpty
            && t.targetStack == state.stack + [t.to] && t.targetModals == state.modals:
            return reverse(t, completionSpeed: 1)
        case .dismiss(let options)
        where options == .standard && t.operation == .present && t.targetModals == state.modals + [t.to]
            && t.targetStack == state.stack:
            return reverse(t, completionSpeed: 1)
        default:
            return nil
        }
    }
}
