/// How a gesture is let go: `end`'s decision and the velocities it decides with.
extension Decision {
    /// `end`: the navigator's end rule decides between finishing and cancelling; `animator` times the
    /// completion either way, as on `finish` and `cancel`. With `percent`, the point is recorded first
    /// as an `update` with `geometry` would record it, so a client `time` keeps the fit on its clock.
    func end(percent: Double?, velocity: Double?, animator: CompletionAnimator?, geometry: GestureGeometry)
        throws(CoreError)
        -> [NavigationEvent]
    {
        let t = try gestureTransition("end")
        var events: [NavigationEvent] = []
        var p = t.percent
        var v = velocity ?? releaseVelocity(t)
        if let percent {
            p = percent
            // The update records the velocity the release is decided with, measured with its point.
            let moved = event(
                .updated(transition: t.id, percent: p, velocity: 0, geometry: geometry, estimated: true))
            v = velocity ?? releaseVelocity(t.evolved(by: moved.kind, frame: frame, clock: state.clock))
            events.append(
                event(
                    .updated(
                        transition: t.id, percent: p, velocity: v, geometry: geometry, estimated: velocity == nil)))
        }
        switch state.config.endRule.decide(percent: p, velocity: v) {
        case .finish:
            let (speed, curve) = animator?.completion(from: p, to: 1, velocity: v) ?? (1, .easeInOut)
            events.append(
                event(
                    .finishing(
                        transition: t.id, fraction: p, velocity: v, completionSpeed: speed, completionCurve: curve)))
        case .cancel:
            let (speed, curve) = animator?.completion(from: p, to: 0, velocity: v) ?? (1, .easeInOut)
            events.append(
                event(
                    .cancelling(
                        transition: t.id, fraction: p, completionSpeed: speed, completionCurve: curve,
                        reason: .requested, velocity: v)))
        }
        return events
    }

    /// The velocity an `update` without one records, and ticks carry: with the client's `time`, the
    /// fit `end` measures with (batched touches keep their spacing); otherwise
    /// fraction per second since the last interaction. Updates that land in one frame count as one
    /// frame apart: keeping the earlier velocity instead would let a finger dragged back within a
    /// frame still fling the transition to completion.
    func estimatedVelocity(_ t: Transition, percent: Double, time: Int64?) -> Double {
        if let time {
            var path = t
            path.record(GestureSample(frame: frame, clientTime: time, percent: percent))
            if let fit = VelocityEstimator.estimate(path.samples, clock: state.clock) { return fit }
        }
        let frames = max(1, frame - t.lastInteractionFrame)
        return VelocityEstimator.bounded((percent - t.percent) * Double(state.clock.rate) / Double(frames))
    }

    /// How long a finger may rest after its last update and still lift with that update's velocity.
    /// A pan recognizer measures the velocity at `.ended` from the last moments of motion, so a
    /// finger held still lifts at about zero: an `end` that comes later than this after the last
    /// update is decided with velocity 0, not with a fling that stopped long before.
    static let releaseVelocityWindow = 0.1

    /// The velocity `end` uses when it carries none: 0 after a rest; the last update's when the
    /// client gave it; else the least-squares fit over the gesture's last 100 ms, and 0 when fewer than
    /// two instants fall in them (as Android's VelocityTracker: no motion measured is no fling; an
    /// `end` sent with `begin`, or long after it, is decided by its percent).
    func releaseVelocity(_ t: Transition) -> Double {
        let rested = Double(frame - t.lastInteractionFrame)
        guard rested <= state.clock.frames(forSeconds: Self.releaseVelocityWindow) else { return 0 }
        if t.velocityGiven { return t.velocity }
        return VelocityEstimator.estimate(t.samples, clock: state.clock) ?? 0
    }
}
