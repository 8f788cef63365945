import Testing

@testable import SegueCore

/// Closed-form springs against reference values computed to 30 digits with mpmath.
@Suite struct SpringTests {
    static let times = [0.05, 0.1, 0.2, 0.35, 0.5, 1.0]

    @Test(arguments: [
        (
            Spring.physical(mass: 1, stiffness: 100, damping: 10, initialVelocity: 0),
            [0.10440547, 0.34029985, 0.84942564, 1.16164992, 1.07459057, 1.00217012]
        ),
        // UIKit's navigation push spring (overdamped, ζ ≈ 4.56).
        (
            .physical(mass: 3, stiffness: 1000, damping: 500, initialVelocity: 0),
            [0.08502647, 0.17311216, 0.32466445, 0.50154137, 0.63209251, 0.86630854]
        ),
    ])
    func physicalSpringTable(spring: Spring, expected: [Double]) throws {
        let motion = try #require(spring.intrinsicMotion)
        let duration = try #require(spring.settlingDuration)
        for (t, value) in zip(Self.times, expected) {
            #expect(abs(motion.value(at: t) - value) < 1e-6, "t = \(t): \(motion.value(at: t))")
            let progress = spring.progress(atFraction: t / duration, duration: duration)
            #expect(abs(progress - value) < 1e-6, "progress at t = \(t): \(progress)")
        }
    }

    @Test(arguments: [
        (Spring.physical(mass: 1, stiffness: 100, damping: 10, initialVelocity: 0), 1.410319263041605),
        (.physical(mass: 3, stiffness: 1000, damping: 500, initialVelocity: 0), 3.418032877370520),
    ])
    func settlingTime(spring: Spring, expected: Double) throws {
        let duration = try #require(spring.settlingDuration)
        #expect(abs(duration - expected) < 1e-9, "settling time \(duration)")
        #expect(TimingCurve.spring(spring).intrinsicDuration == duration)
    }

    /// After the settling time the displacement never leaves the 0.001 band, and just before it, it is
    /// outside the band at least once (the settling time is the last crossing, not a loose bound).
    @Test(arguments: [
        Spring.physical(mass: 1, stiffness: 100, damping: 10, initialVelocity: 0),
        .physical(mass: 3, stiffness: 1000, damping: 500, initialVelocity: 0),
        .physical(mass: 1, stiffness: 100, damping: 20, initialVelocity: 0),  // critical
        .physical(mass: 1, stiffness: 100, damping: 20, initialVelocity: 30),  // critical, crosses zero
        .physical(mass: 1, stiffness: 100, damping: 40, initialVelocity: -5),  // overdamped, moves away first
        .physical(mass: 1, stiffness: 100, damping: 40, initialVelocity: 60),  // overdamped, overshoots once
        .physical(mass: 2, stiffness: 300, damping: 5, initialVelocity: 8),
        .response(response: 0.5, dampingFraction: 0.825),
    ])
    func settlingTimeIsTheLastExitFromTheBand(spring: Spring) throws {
        let motion = try #require(spring.intrinsicMotion)
        let settle = motion.settlingTime
        for step in 0...2000 {
            let t = settle * (1 + Double(step) / 200)
            #expect(abs(motion.displacement(at: t)) <= SpringMotion.tolerance * (1 + 1e-9), "t = \(t)")
        }
        if motion.dampingRatio >= 1 {
            #expect(abs(abs(motion.displacement(at: settle)) - SpringMotion.tolerance) < 1e-12)
        } else {
            // Within the last oscillation period before the settling time the displacement leaves the band.
            let period = 2 * Double.pi / (motion.omega * (1 - motion.dampingRatio * motion.dampingRatio).squareRoot())
            let outside = (0..<2000).contains { step in
                abs(motion.displacement(at: settle - period * Double(step) / 2000)) > SpringMotion.tolerance
            }
            #expect(outside)
        }
    }

    /// SwiftUI's definition: mass 1, stiffness (2π/response)², damping 4π·ζ/response.
    @Test(arguments: [(0.55, 0.825), (0.3, 0.5), (1.0, 1.0), (0.4, 1.3)])
    func responseIsPhysical(response: Double, fraction: Double) throws {
        let twoPi = 2 * Double.pi
        let physical = Spring.physical(
            mass: 1, stiffness: (twoPi / response) * (twoPi / response),
            damping: 4 * Double.pi * fraction / response, initialVelocity: 0)
        let a = try #require(Spring.response(response: response, dampingFraction: fraction).intrinsicMotion)
        let b = try #require(physical.intrinsicMotion)
        #expect(abs(a.dampingRatio - fraction) < 1e-12)
        #expect(abs(a.settlingTime - b.settlingTime) < 1e-9 * b.settlingTime)
        for t in Self.times { #expect(abs(a.value(at: t) - b.value(at: t)) < 1e-12) }
    }

    @Test(arguments: [(0.5, 0.0), (0.7, 2.0), (1.0, 0.0), (1.0, 5.0), (0.3, -1.0), (2.0, 0.0), (0.9, 12.0)])
    func dampingRatioLandsExactlyOnOne(ratio: Double, velocity: Double) throws {
        let spring = Spring.dampingRatio(ratio: ratio, initialVelocity: velocity)
        for duration in [0.25, 0.5, 1.0] {
            #expect(spring.progress(atFraction: 0, duration: duration) == 0)
            #expect(spring.progress(atFraction: 1, duration: duration) == 1)
            let motion = try #require(spring.motion(overDuration: duration))
            // The zero-velocity spring is settled at the end of the duration: the normalisation is tiny.
            if velocity == 0 {
                #expect(abs(motion.displacement(at: duration)) <= SpringMotion.tolerance * (1 + 1e-9))
                #expect(abs(motion.settlingTime - duration) < 1e-9)
            }
            let nearEnd = spring.progress(atFraction: 0.999, duration: duration)
            #expect(abs(nearEnd - 1) < 0.01, "ratio \(ratio) v \(velocity) D \(duration): \(nearEnd)")
        }
    }

    /// Initial velocity in UIKit's unit: total distance per second, so the slope at 0 is about v·D per
    /// unit of fraction (before the tiny end normalisation).
    @Test func dampingRatioInitialVelocityIsDistancePerSecond() {
        let duration = 0.5
        let spring = Spring.dampingRatio(ratio: 0.8, initialVelocity: 4)
        let h = 1e-6
        let slope = spring.progress(atFraction: h, duration: duration) / (h * duration)  // per second
        #expect(abs(slope - 4) < 0.02, "slope \(slope)")
    }

    @Test func underdampedRatioOvershoots() {
        let spring = Spring.dampingRatio(ratio: 0.4, initialVelocity: 0)
        let peak = (1..<100).map { spring.progress(atFraction: Double($0) / 100, duration: 0.6) }.max() ?? 0
        #expect(peak > 1.2)
    }

    @Test(arguments: [
        Spring.physical(mass: 0, stiffness: 100, damping: 10, initialVelocity: 0),
        .physical(mass: 1, stiffness: -1, damping: 10, initialVelocity: 0),
        .physical(mass: 1, stiffness: 100, damping: 0, initialVelocity: 0),
        .physical(mass: 1, stiffness: 100, damping: 10, initialVelocity: .infinity),
        .response(response: 0, dampingFraction: 0.5),
    ])
    func invalidSpringsHaveNoMotion(spring: Spring) {
        #expect(spring.intrinsicMotion == nil)
        #expect(spring.progress(atFraction: 0.25, duration: 1) == 0.25)
    }
}
