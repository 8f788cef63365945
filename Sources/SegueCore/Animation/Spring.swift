/// The three ways people specify springs (docs/design.md, "Concepts"). Springs may overshoot: their progress can leave
/// [0, 1] before it settles.
public enum Spring: Equatable, Sendable {
    /// UIKit `usingSpringWithDamping:initialSpringVelocity:` over the animator's duration. The velocity is
    /// in UIKit's unit: "a value of 1 corresponds to the total animation distance traversed in one second".
    case dampingRatio(ratio: Double, initialVelocity: Double)
    /// CASpringAnimation: duration is the settling time.
    case physical(mass: Double, stiffness: Double, damping: Double, initialVelocity: Double)
    /// SwiftUI `.spring(response:dampingFraction:)`: mass 1, stiffness (2π/response)², damping 4π·ζ/response.
    case response(response: Double, dampingFraction: Double)

    /// The spring's motion when it has one of its own (physical and response forms); `nil` for the
    /// damping-ratio form, whose frequency depends on the animator's duration, and for invalid parameters.
    var intrinsicMotion: SpringMotion? {
        switch self {
        case .dampingRatio:
            return nil
        case .physical(let mass, let stiffness, let damping, let initialVelocity):
            return SpringMotion(mass: mass, stiffness: stiffness, damping: damping, initialVelocity: initialVelocity)
        case .response(let response, let dampingFraction):
            guard response > 0, response.isFinite else { return nil }
            let (stiffness, damping) = Self.physical(response: response, dampingFraction: dampingFraction)
            return SpringMotion(mass: 1, stiffness: stiffness, damping: damping, initialVelocity: 0)
        }
    }

    /// SwiftUI's response/dampingFraction as the stiffness and damping of a spring of mass 1.
    static func physical(response: Double, dampingFraction: Double) -> (stiffness: Double, damping: Double) {
        let twoPi = 6.283185307179586
        return ((twoPi / response) * (twoPi / response), 2 * twoPi * dampingFraction / response)
    }

    /// The same spring released at `velocity` (total distances per second). SwiftUI's form has no
    /// velocity, so it becomes the physical spring it stands for.
    func released(at velocity: Double) -> Spring {
        switch self {
        case .dampingRatio(let ratio, _):
            return .dampingRatio(ratio: ratio, initialVelocity: velocity)
        case .physical(let mass, let stiffness, let damping, _):
            return .physical(mass: mass, stiffness: stiffness, damping: damping, initialVelocity: velocity)
        case .response(let response, let dampingFraction):
            let (stiffness, damping) = Self.physical(response: response, dampingFraction: dampingFraction)
            return .physical(mass: 1, stiffness: stiffness, damping: damping, initialVelocity: velocity)
        }
    }

    /// The damping-ratio form's motion over `duration` seconds.
    ///
    /// UIKit does not document how it picks the spring's frequency, only that the animation lasts `duration`
    /// and ends at rest. We choose ω₀ so that the same spring released with zero velocity settles (its
    /// displacement stays within 0.001) exactly at `duration`: ω₀ = τₛ(ζ, 0)/duration, where τₛ is the
    /// scaled settling time. The frequency therefore does not depend on the initial velocity, which only
    /// shapes the start; `progress` then divides by the value at `duration`, so the curve lands on exactly 1
    /// whatever the velocity.
    func motion(overDuration duration: Double) -> SpringMotion? {
        guard case .dampingRatio(let ratio, let initialVelocity) = self, duration > 0, duration.isFinite,
            ratio > 0, ratio.isFinite
        else { return nil }
        let omega = SpringMotion.scaledSettlingTime(ratio, 0) / duration
        return SpringMotion(dampingRatio: ratio, omega: omega, initialVelocity: initialVelocity)
    }

    /// The settling time of the physical and response forms; `nil` for the damping-ratio form.
    public var settlingDuration: Double? { intrinsicMotion?.settlingTime }

    /// Progress at `fraction` of `duration` seconds: 0 at 0, exactly 1 from fraction 1 on (the last frame
    /// snaps). Invalid parameters (which the JSON form rejects) fall back to linear.
    public func progress(atFraction fraction: Double, duration: Double) -> Double {
        if !(fraction > 0) { return 0 }
        if fraction >= 1 { return 1 }
        switch self {
        case .dampingRatio:
            guard let motion = motion(overDuration: duration) else { return fraction }
            return motion.value(at: fraction * duration) / motion.value(at: duration)
        case .physical, .response:
            guard let motion = intrinsicMotion, duration.isFinite, duration >= 0 else { return fraction }
            return motion.value(at: fraction * duration)
        }
    }
}
