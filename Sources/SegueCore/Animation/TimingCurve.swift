/// Maps the fraction of a transition's time elapsed to its progress (UIKit's timing curves and springs).
public enum TimingCurve: Equatable, Sendable {
    case linear
    /// Core Animation's `kCAMediaTimingFunctionEaseIn`: (0.42, 0, 1, 1).
    case easeIn
    /// `kCAMediaTimingFunctionEaseOut`: (0, 0, 0.58, 1).
    case easeOut
    /// `kCAMediaTimingFunctionEaseInEaseOut`: (0.42, 0, 0.58, 1).
    case easeInOut
    /// CSS `ease`, Core Animation's `kCAMediaTimingFunctionDefault`: (0.25, 0.1, 0.25, 1).
    case `default`
    /// Any cubic Bezier from (0, 0) to (1, 1); x1 and x2 must be in [0, 1], y1 and y2 may overshoot.
    case bezier(x1: Double, y1: Double, x2: Double, y2: Double)
    case spring(Spring)

    /// The named curves' names on the wire, in documentation order.
    public static let namedCurves: [(name: String, curve: TimingCurve)] = [
        ("linear", .linear), ("easeIn", .easeIn), ("easeOut", .easeOut), ("easeInOut", .easeInOut),
        ("default", .default),
    ]

    private static let easeInBezier = UnitBezier(x1: 0.42, y1: 0, x2: 1, y2: 1)
    private static let easeOutBezier = UnitBezier(x1: 0, y1: 0, x2: 0.58, y2: 1)
    private static let easeInOutBezier = UnitBezier(x1: 0.42, y1: 0, x2: 0.58, y2: 1)
    private static let defaultBezier = UnitBezier(x1: 0.25, y1: 0.1, x2: 0.25, y2: 1)

    /// Progress at `fraction` (0...1) of a transition lasting `duration` seconds. Springs may leave [0, 1].
    /// Fractions outside [0, 1] are clamped; every curve gives exactly 0 at 0 and exactly 1 at 1.
    public func progress(atFraction fraction: Double, duration: Double) -> Double {
        if !(fraction > 0) { return 0 }
        if fraction >= 1 { return 1 }
        switch self {
        case .linear: return fraction
        case .easeIn: return Self.easeInBezier.value(atX: fraction)
        case .easeOut: return Self.easeOutBezier.value(atX: fraction)
        case .easeInOut: return Self.easeInOutBezier.value(atX: fraction)
        case .default: return Self.defaultBezier.value(atX: fraction)
        case .bezier(let x1, let y1, let x2, let y2):
            return UnitBezier(x1: x1, y1: y1, x2: x2, y2: y2).value(atX: fraction)
        case .spring(let spring): return spring.progress(atFraction: fraction, duration: duration)
        }
    }

    /// A physical spring's settling duration, which overrides the animator's; `nil` for other curves.
    public var intrinsicDuration: Double? {
        if case .spring(let spring) = self { spring.settlingDuration } else { nil }
    }
}
