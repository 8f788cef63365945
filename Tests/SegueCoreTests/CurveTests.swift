import Testing

@testable import SegueCore

/// Cubic Bezier timing curves against the published values of Core Animation's named functions.
@Suite struct CurveTests {
    static let fractions = [0.1, 0.25, 0.5, 0.75, 0.9]

    @Test(arguments: [
        (TimingCurve.default, [0.094796, 0.408511, 0.802403, 0.960459, 0.994316]),
        (.easeIn, [0.017027, 0.093465, 0.315357, 0.621862, 0.839428]),
        (.easeOut, [0.160572, 0.378138, 0.684643, 0.906535, 0.982973]),
        (.easeInOut, [0.019722, 0.129162, 0.5, 0.870838, 0.980278]),
        (.linear, [0.1, 0.25, 0.5, 0.75, 0.9]),
    ])
    func namedCurveTable(curve: TimingCurve, expected: [Double]) {
        for (fraction, value) in zip(Self.fractions, expected) {
            let progress = curve.progress(atFraction: fraction, duration: 0.35)
            #expect(abs(progress - value) < 1e-6, "\(curve) at \(fraction): \(progress)")
        }
    }

    @Test(arguments: [
        (TimingCurve.easeIn, TimingCurve.bezier(x1: 0.42, y1: 0, x2: 1, y2: 1)),
        (.easeOut, .bezier(x1: 0, y1: 0, x2: 0.58, y2: 1)),
        (.easeInOut, .bezier(x1: 0.42, y1: 0, x2: 0.58, y2: 1)),
        (.default, .bezier(x1: 0.25, y1: 0.1, x2: 0.25, y2: 1)),
    ])
    func namedCurvesAreTheirBeziers(named: TimingCurve, bezier: TimingCurve) {
        for step in 0...100 {
            let fraction = Double(step) / 100
            #expect(
                named.progress(atFraction: fraction, duration: 1) == bezier.progress(atFraction: fraction, duration: 1))
        }
    }

    @Test(arguments: [
        TimingCurve.linear, .easeIn, .easeOut, .easeInOut, .default, .bezier(x1: 0.3, y1: -0.5, x2: 0.7, y2: 1.5),
        .spring(.dampingRatio(ratio: 0.5, initialVelocity: 3)), .spring(.response(response: 0.4, dampingFraction: 0.8)),
    ])
    func endsAreExactAndFractionIsClamped(curve: TimingCurve) {
        #expect(curve.progress(atFraction: 0, duration: 0.5) == 0)
        #expect(curve.progress(atFraction: 1, duration: 0.5) == 1)
        #expect(curve.progress(atFraction: -0.5, duration: 0.5) == 0)
        #expect(curve.progress(atFraction: 1.5, duration: 0.5) == 1)
        #expect(curve.progress(atFraction: .nan, duration: 0.5) == 0)
    }

    /// The solver inverts x(t) to 1e-12, whatever the control points.
    @Test(arguments: [(0.0, 0.0, 1.0, 1.0), (1.0, 0.0, 0.0, 1.0), (0.9, 0.1, 0.1, 0.9), (0.0, 1.0, 1.0, 0.0)])
    func solverInvertsX(x1: Double, y1: Double, x2: Double, y2: Double) {
        let bezier = UnitBezier(x1: x1, y1: y1, x2: x2, y2: y2)
        for step in 1..<200 {
            let x = Double(step) / 200
            #expect(abs(bezier.sampleX(bezier.solveX(x)) - x) < 1e-12, "x = \(x)")
        }
    }

    /// Overshooting y control points (CSS "back" easing) leave [0, 1], as they should.
    @Test func bezierMayOvershoot() {
        let curve = TimingCurve.bezier(x1: 0.34, y1: 1.56, x2: 0.64, y2: 1)
        let peak = (1..<100).map { curve.progress(atFraction: Double($0) / 100, duration: 1) }.max() ?? 0
        #expect(peak > 1.05)
    }

    @Test func onlyPhysicalSpringsHaveIntrinsicDurations() {
        #expect(TimingCurve.easeInOut.intrinsicDuration == nil)
        #expect(TimingCurve.spring(.dampingRatio(ratio: 0.5, initialVelocity: 0)).intrinsicDuration == nil)
        #expect(
            TimingCurve.spring(.physical(mass: 1, stiffness: 100, damping: 10, initialVelocity: 0))
                .intrinsicDuration != nil)
    }
}
