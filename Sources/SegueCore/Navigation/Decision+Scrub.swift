/// `pause`, `seek` and `resume` (docs/protocol.md): UIKit's `pauseAnimation()`, `fractionComplete` and
/// `startAnimation()` on a running `UIViewPropertyAnimator`.
extension Decision {
    func pause() throws(CoreError) -> [NavigationEvent] {
        let t = try scrubbed("pause")
        switch t.phase {
        case .animating, .finishing, .cancelling:
            return [event(.paused(transition: t.id, fraction: t.fraction(at: frame)))]
        case .paused:
            throw CoreError(
                .notInteractive, "Transition \(t.id) on \(name) is already paused; seek or resume it.")
        default:
            throw CoreError(
                .notInteractive,
                "Transition \(t.id) on \(name) is \(t.phase.rawValue), not animating; a gesture holds it: finish, cancel or end it."
            )
        }
    }

    /// `value` is the fraction of time to stand at, or with `scrubsLinearly` the progress to show: the
    /// transition then stands at the first fraction where its curve reaches it, so a resume carries on
    /// from the very frame the views show.
    func seek(_ value: Double, scrubsLinearly: Bool) throws(CoreError) -> [NavigationEvent] {
        let t = try paused("seek")
        let fraction = scrubsLinearly ? t.animator.curve.fraction(reaching: value, duration: t.duration) : value
        return [event(.seeked(transition: t.id, fraction: fraction, scrubsLinearly: scrubsLinearly))]
    }

    func resume() throws(CoreError) -> [NavigationEvent] {
        let t = try paused("resume")
        return [event(.resumed(transition: t.id, fraction: t.percent))]
    }

    /// The transition in flight, for a scrubbing command, after the owner check.
    private func scrubbed(_ cmd: String) throws(CoreError) -> Transition {
        guard let t = state.transition else {
            throw CoreError(
                .noTransition, "Navigator \(name) has no transition in flight; \(cmd) applies to an animated one.")
        }
        try checkOwner(t, cmd)
        return t
    }

    private func paused(_ cmd: String) throws(CoreError) -> Transition {
        let t = try scrubbed(cmd)
        guard t.phase == .paused else {
            throw CoreError(
                .notInteractive,
                "Transition \(t.id) on \(name) is \(t.phase.rawValue), not paused; pause it before \(cmd).")
        }
        return t
    }
}
