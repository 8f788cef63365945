/// Maps the fraction of a transition's time elapsed to its progress (UIKit's timing curves and springs).
public enum TimingCurve: Equatable, Sendable {
    case linear
    case easeIn
    case easeOut
    case easeInOut
    /// CSS `ease`, Core Animation's `kCAMediaTimingFunctionDefault`: (0.25, 0.1, 0.25, 1).
    case `default`
    case bezier(x1: Double, y1: Double, x2: Double, y2: Double)
    case spring(Spring)

    /// Progress at `fraction` (0...1) of a transition lasting `duration` seconds. Springs may leave [0, 1].
    public func progress(atFraction fraction: Double, duration: Double) -> Double {
        fraction  // placeholder; replaced by the curves implementation
    }

    /// A physical spring's settling duration, which overrides the animator's; `nil` for other curves.
    public var intrinsicDuration: Double? { nil }
}

/// The three ways people specify springs (DESIGN.md §2).
public enum Spring: Equatable, Sendable {
    /// UIKit `usingSpringWithDamping:initialSpringVelocity:` over the animator's duration.
    case dampingRatio(ratio: Double, initialVelocity: Double)
    /// CASpringAnimation: duration is the settling time.
    case physical(mass: Double, stiffness: Double, damping: Double, initialVelocity: Double)
    /// SwiftUI `.spring(response:dampingFraction:)`: mass 1, stiffness (2π/response)², damping 4π·ζ/response.
    case response(response: Double, dampingFraction: Double)
}
