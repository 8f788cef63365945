/// The motion of a transition reversed mid-flight: it starts where the fraction is, moving as fast as
/// it was, turns toward `target` at a constant acceleration until it moves at `cruise`, the
/// animator's own speed, and keeps that speed to the end, arriving as the animator, run backwards,
/// would. SwiftUI retargets a running spring so, keeping its velocity; UIKit's `isReversed` flips
/// the velocity within one frame, which is the jump this avoids.
///
/// Everything is in fractions and frames; positive velocities point toward `target`. The turn is
/// gentle enough that no step changes by more than half a cruise step a frame, except where the
/// transition is too close to its end to turn within it: then it turns harder (at most a step's
/// worth a frame), and the fraction, clamped, holds at the end for the frames it would overshoot.
struct Retarget: Equatable, Sendable {
    let start: Double
    /// 0 or 1.
    let target: Double
    /// At the start, toward `target` (negative: still moving away from it).
    let velocity: Double
    /// The speed it arrives at, > 0.
    let cruise: Double
    /// > 0.
    let acceleration: Double
    /// Its whole length in frames.
    let frames: Double

    /// A turn at `velocity` (fraction per frame, + toward 1) from `start` to `target`, arriving at
    /// `cruise` (fraction per frame: 1 / the frames of the animator's own run).
    init(start: Double, target: Double, velocity: Double, cruise: Double) {
        self.start = start
        self.target = target
        self.cruise = cruise
        let toward = target >= 1 ? velocity : -velocity
        self.velocity = toward
        // A quarter of the run at cruise speed, and never under two frames.
        var acceleration = cruise / max(1 / (4 * cruise), 2)
        if toward < 0 {
            // Moving away: it must stop within the room left before the far end.
            let room = target >= 1 ? start : 1 - start
            let needed = room > 0 ? toward * toward / (2 * room) : Double.infinity
            acceleration = max(acceleration, min(needed, max(cruise, -toward)))
        }
        self.acceleration = acceleration
        let distance = abs(target - start)
        let turn = abs(cruise - toward) / acceleration
        let covered = (toward + cruise) / 2 * turn
        if covered >= distance {
            // It reaches the target while still turning toward the cruise speed.
            let sign: Double = cruise >= toward ? 1 : -1
            let root = (toward * toward + 2 * sign * acceleration * distance).squareRoot()
            frames = sign > 0 ? (root - toward) / acceleration : (toward - root) / acceleration
        } else {
            frames = turn + (distance - covered) / cruise
        }
    }

    /// The length of the turn, after which it cruises.
    private var turnFrames: Double { min(frames, abs(cruise - velocity) / acceleration) }

    /// The distance covered toward `target` after `elapsed` frames (negative while moving away).
    private func covered(after elapsed: Double) -> Double {
        let turn = turnFrames
        let sign: Double = cruise >= velocity ? 1 : -1
        let e = min(elapsed, turn)
        var y = velocity * e + sign * acceleration * e * e / 2
        if elapsed > turn { y += cruise * (elapsed - turn) }
        return y
    }

    /// The fraction after `elapsed` frames, within [0, 1].
    func fraction(atElapsed elapsed: Double) -> Double {
        let direction: Double = target >= 1 ? 1 : -1
        return min(1, max(0, start + direction * covered(after: elapsed)))
    }

    /// The fraction's rate after `elapsed` frames, per frame, + toward 1.
    func rate(atElapsed elapsed: Double) -> Double {
        let sign: Double = cruise >= velocity ? 1 : -1
        let toward = elapsed >= turnFrames ? cruise : velocity + sign * acceleration * elapsed
        return target >= 1 ? toward : -toward
    }
}
