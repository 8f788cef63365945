/// The closed-form motion of a damped harmonic oscillator released at displacement 1 from its target,
/// moving toward it at `initialVelocity` (in "total distances per second", UIKit's and CASpringAnimation's
/// unit; negative moves away first). A spring curve's value is 1 − displacement.
///
/// Everything is computed in scaled time τ = ω₀·t, where the motion depends only on the damping ratio ζ and
/// the scaled velocity u = v₀/ω₀:
/// - ζ < 1: x = e^(−ζτ)·(cos ω′τ + b·sin ω′τ), ω′ = √(1 − ζ²), b = (ζ − u)/ω′;
/// - ζ = 1: x = (1 + (1 − u)τ)·e^(−τ);
/// - ζ > 1: x = c₁e^(r₁τ) + c₂e^(r₂τ), r₁ = −1/(ζ + s), r₂ = −ζ − s, s = √(ζ² − 1).
/// |ζ − 1| < 1e-9 counts as critical: the over- and underdamped forms lose precision there and differ
/// from the critical one by less than 1e-8.
struct SpringMotion: Equatable, Sendable {
    /// The settling tolerance: done once the displacement stays within 0.001 of the target.
    static let tolerance = 0.001

    let dampingRatio: Double
    /// Natural angular frequency ω₀ in rad/s.
    let omega: Double
    let scaledVelocity: Double

    /// `nil` unless every parameter is finite and mass, stiffness and damping are positive.
    init?(mass: Double, stiffness: Double, damping: Double, initialVelocity: Double) {
        guard mass > 0, stiffness > 0, damping > 0, mass.isFinite, stiffness.isFinite, damping.isFinite,
            initialVelocity.isFinite
        else { return nil }
        let omega = (stiffness / mass).squareRoot()
        self.init(
            dampingRatio: damping / (2 * (stiffness * mass).squareRoot()), omega: omega,
            initialVelocity: initialVelocity)
    }

    /// `nil` unless ζ and ω₀ are positive and finite and the velocity is finite.
    init?(dampingRatio: Double, omega: Double, initialVelocity: Double) {
        guard dampingRatio > 0, omega > 0, dampingRatio.isFinite, omega.isFinite, initialVelocity.isFinite,
            (initialVelocity / omega).isFinite
        else { return nil }
        self.dampingRatio = dampingRatio
        self.omega = omega
        self.scaledVelocity = initialVelocity / omega
    }

    private var isCritical: Bool { abs(dampingRatio - 1) < 1e-9 }

    /// Displacement from the target at `t` seconds (1 at t = 0).
    func displacement(at t: Double) -> Double { Self.displacement(atScaled: omega * t, dampingRatio, scaledVelocity) }

    /// The spring curve's value at `t` seconds: 0 at rest at the start, 1 at the target.
    func value(at t: Double) -> Double { 1 - displacement(at: t) }

    /// Seconds after which the displacement stays within `tolerance` of the target.
    var settlingTime: Double { Self.scaledSettlingTime(dampingRatio, scaledVelocity) / omega }

    static func displacement(atScaled tau: Double, _ zeta: Double, _ u: Double) -> Double {
        if abs(zeta - 1) < 1e-9 {
            return (1 + (1 - u) * tau) * Elementary.exp(-tau)
        }
        if zeta < 1 {
            let omegaD = (1 - zeta * zeta).squareRoot()
            let b = (zeta - u) / omegaD
            let phase = omegaD * tau
            return Elementary.exp(-zeta * tau) * (Elementary.cos(phase) + b * Elementary.sin(phase))
        }
        let (r1, r2, c1, c2) = overdampedTerms(zeta, u)
        return c1 * Elementary.exp(r1 * tau) + c2 * Elementary.exp(r2 * tau)
    }

    private static func overdampedTerms(_ zeta: Double, _ u: Double) -> (Double, Double, Double, Double) {
        let s = (zeta * zeta - 1).squareRoot()
        let r1 = -1 / (zeta + s)  // = −ζ + s without the cancellation
        let r2 = -zeta - s
        let c1 = (-u - r2) / (r1 - r2)
        let c2 = (r1 + u) / (r1 - r2)
        return (r1, r2, c1, c2)
    }

    /// Scaled settling time. Underdamped: the envelope R·e^(−ζτ), R = √(1 + b²), reaches the tolerance at
    /// τ = ln(R/tol)/ζ. Otherwise x crosses zero at most once and has at most one extremum τ*; after
    /// τ* |x| only decreases, and before it x is monotonic, so the last time |x| = tol is found by bisection
    /// on the one interval where it can be.
    static func scaledSettlingTime(_ zeta: Double, _ u: Double) -> Double {
        let tolerance = Self.tolerance
        if zeta < 1 && abs(zeta - 1) >= 1e-9 {
            let omegaD = (1 - zeta * zeta).squareRoot()
            let b = (zeta - u) / omegaD
            let amplitude = (1 + b * b).squareRoot()
            return amplitude <= tolerance ? 0 : Elementary.log(amplitude / tolerance) / zeta
        }
        let extremum = extremumTime(zeta, u)
        let x: (Double) -> Double = { displacement(atScaled: $0, zeta, u) }
        if abs(x(extremum)) > tolerance {
            var high = max(extremum, 1)
            var guardCount = 0
            while abs(x(high)) > tolerance && guardCount < 1100 {
                high *= 2
                guardCount += 1
            }
            return bisect(low: extremum, high: high) { abs(x($0)) > tolerance }
        }
        return bisect(low: 0, high: extremum) { x($0) > tolerance }
    }

    /// The time of the extremum of x after 0 (where x′ = 0), or 0 if there is none.
    private static func extremumTime(_ zeta: Double, _ u: Double) -> Double {
        if abs(zeta - 1) < 1e-9 {
            // x′ = (c − 1 − cτ)e^(−τ) with c = 1 − u.
            let c = 1 - u
            guard c != 0 else { return 0 }
            return max(0, (c - 1) / c)
        }
        let (r1, r2, c1, c2) = overdampedTerms(zeta, u)
        let ratio = -(c2 * r2) / (c1 * r1)
        guard ratio > 0, ratio.isFinite else { return 0 }
        return max(0, Elementary.log(ratio) / (r1 - r2))
    }

    /// The boundary in [low, high] where `isAbove` turns from true to false, to about 1e-15 relative.
    private static func bisect(low: Double, high: Double, isAbove: (Double) -> Bool) -> Double {
        var low = low
        var high = high
        for _ in 0..<200 {
            let middle = (high - low) / 2 + low
            if middle <= low || middle >= high { break }
            if isAbove(middle) { low = middle } else { high = middle }
        }
        return high
    }
}
