import Testing

@testable import SegueCore

/// The springs' own exp/log/sin/cos against reference values (computed to 17 digits with mpmath).
@Suite struct CurveMathTests {
    static func close(_ a: Double, _ b: Double, relative: Double = 2e-15) -> Bool {
        abs(a - b) <= relative * max(abs(b), 1e-300)
    }

    @Test(arguments: [
        (0.0, 1.0), (1.0, 2.718281828459045), (-1.0, 0.36787944117144233), (0.5, 1.6487212707001282),
        (10.0, 22026.465794806718), (-20.0, 2.061153622438558e-09), (0.001, 1.0010005001667084),
        (-7.0516, 0.00086602221266686243), (100.0, 2.6881171418161356e+43), (-700.0, 9.85967654375977e-305),
    ])
    func exp(x: Double, expected: Double) {
        #expect(Self.close(Elementary.exp(x), expected), "exp(\(x)) = \(Elementary.exp(x))")
    }

    @Test func expLimits() {
        #expect(Elementary.exp(800) == .infinity)
        #expect(Elementary.exp(-800) == 0)
        #expect(Elementary.exp(.nan).isNaN)
    }

    @Test(arguments: [
        (1.0, 0.0), (2.0, 0.6931471805599453), (10.0, 2.302585092994046), (0.001, -6.907755278982137),
        (1154.7005383792516, 7.0515963152080276), (1e-300, -690.7755278982137),
        (1.4142135623730951, 0.34657359027997264),
        (0.7, -0.35667494393873245),
    ])
    func log(x: Double, expected: Double) {
        let value = Elementary.log(x)
        #expect(expected == 0 ? value == 0 : Self.close(value, expected), "log(\(x)) = \(value)")
    }

    @Test func logLimits() {
        #expect(Elementary.log(0) == -.infinity)
        #expect(Elementary.log(-1).isNaN)
    }

    @Test(arguments: [
        (0.0, 0.0, 1.0), (1.0, 0.8414709848078965, 0.5403023058681398),
        (0.5, 0.479425538604203, 0.8775825618903728), (-2.0, -0.9092974268256817, -0.4161468365471424),
        (3.0, 0.1411200080598672, -0.9899924966004454), (100.0, -0.5063656411097588, 0.8623188722876839),
        (1000.0, 0.8268795405320025, 0.5623790762907029), (0.7853981633974483, 0.7071067811865475, 0.7071067811865476),
    ])
    func sinCos(x: Double, sine: Double, cosine: Double) {
        let s = Elementary.sin(x)
        let c = Elementary.cos(x)
        #expect(abs(s - sine) <= 3e-16 * max(1, abs(x) / 100), "sin(\(x)) = \(s)")
        #expect(abs(c - cosine) <= 3e-16 * max(1, abs(x) / 100), "cos(\(x)) = \(c)")
    }

    @Test func pythagoreanIdentityHoldsAcrossQuadrants() {
        for step in -400...400 {
            let x = Double(step) * 0.173
            let s = Elementary.sin(x)
            let c = Elementary.cos(x)
            #expect(abs(s * s + c * c - 1) < 4e-16, "x = \(x)")
        }
    }
}
