/// How a reversal, `pause`, `seek` and `resume` change a transition (the `evolve` side).
extension Transition {
    mutating func scrub(by kind: NavigationEvent.Kind, frame: Int64, clock: FrameClock) {
        switch kind {
        case .reversed(_, let fraction, let velocity, let speed):
            phase = .cancelling
            pausedFrom = nil
            cancelReason = .requested
            let run = clock.frames(forSeconds: duration / speed)
            let turn = Retarget(
                start: fraction, target: 0, velocity: velocity / Double(clock.rate), cruise: run > 0 ? 1 / run : 1)
            segment = Segment(
                startFrame: frame, startFraction: fraction, endFraction: 0, frames: turn.frames, curve: .linear)
            segment.retarget = turn
        case .paused(_, let fraction):
            pausedFrom = phase
            phase = .paused
            percent = fraction
            velocity = 0
            lastInteractionFrame = frame
        case .seeked(_, let fraction, _):
            percent = fraction
            lastInteractionFrame = frame
        case .resumed(_, let fraction):
            // On at the animator's own pace toward the end it was heading for, as if never held.
            phase = pausedFrom ?? .animating
            pausedFrom = nil
            let target: Double = phase == .cancelling ? 0 : 1
            segment = Segment(
                startFrame: frame, startFraction: fraction, endFraction: target,
                frames: clock.frames(forSeconds: abs(target - fraction) * duration), curve: .linear)
        default:
            break
        }
    }
}
