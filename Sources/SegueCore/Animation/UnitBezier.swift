/// A cubic Bezier timing function from (0, 0) to (1, 1) with control points (x1, y1) and (x2, y2), solved
/// the way WebKit's `UnitBezier` (and so CSS and Core Animation) does: find the curve parameter t whose
/// x(t) is the elapsed fraction, by Newton-Raphson from t = x, falling back to bisection, then return y(t).
///
/// We solve x to 1e-12 (WebKit uses about 1/(200·duration)) so that y is good to well under 1e-9 and the
/// named curves match their published tables.
struct UnitBezier: Equatable, Sendable {
    private let ax, bx, cx, ay, by, cy: Double

    /// Control x values outside [0, 1] would make x(t) non-monotonic (no function of time), so they are
    /// clamped here; the JSON form rejects them instead.
    init(x1: Double, y1: Double, x2: Double, y2: Double) {
        let x1 = min(max(x1, 0), 1)
        let x2 = min(max(x2, 0), 1)
        cx = 3 * x1
        bx = 3 * (x2 - x1) - cx
        ax = 1 - cx - bx
        cy = 3 * y1
        by = 3 * (y2 - y1) - cy
        ay = 1 - cy - by
    }

    static let epsilon = 1e-12

    func sampleX(_ t: Double) -> Double { ((ax * t + bx) * t + cx) * t }
    func sampleY(_ t: Double) -> Double { ((ay * t + by) * t + cy) * t }
    func sampleDerivativeX(_ t: Double) -> Double { (3 * ax * t + 2 * bx) * t + cx }

    /// y at x; x is clamped to [0, 1] and the ends are exact.
    func value(atX x: Double) -> Double {
        if !(x > 0) { return 0 }
        if x >= 1 { return 1 }
        return sampleY(solveX(x))
    }

    /// The parameter t in [0, 1] with x(t) = x.
    func solveX(_ x: Double) -> Double {
        var t = x
        for _ in 0..<8 {
            let error = sampleX(t) - x
            if abs(error) < Self.epsilon { return t }
            let derivative = sampleDerivativeX(t)
            if abs(derivative) < 1e-6 { break }
            t -= error / derivative
            if !(t >= 0 && t <= 1) { break }
        }
        // Bisection: x(t) is monotonic on [0, 1] because x1, x2 are in [0, 1].
        var low = 0.0
        var high = 1.0
        t = x
        for _ in 0..<100 {
            let sample = sampleX(t)
            if abs(sample - x) < Self.epsilon { return t }
            if x > sample { low = t } else { high = t }
            t = (high - low) / 2 + low
        }
        return t
    }
}
