import SeededRandom
import Testing

@testable import SegueCore

/// The serializer's fast paths for whole numbers and halves spell doubles exactly as Swift's
/// `description` does, which is what replayed ticks are compared against.
@Suite struct JSONDoubleSpellingTests {
    static let edges: [Double] = [
        0, -0.0, 1, -1, 0.5, -0.5, 2, 10, 100, 65536, 123_456_789, 999_999_999_999_999, 1e15, -1e15, 1e15 - 1,
        4_503_599_627_370_496, 9_007_199_254_740_992, 1e16, 1e-5, 0.25, 1.5, -3,
        .leastNonzeroMagnitude, .greatestFiniteMagnitude, 0.1, 1 / 3,
    ]

    @Test(arguments: edges)
    func edgeValuesMatchDescription(value: Double) {
        #expect(JSON.double(value).serialized() == value.description)
    }

    /// Values of at most three decimals take their own path: every n / 1000 up to ±200, a sweep of
    /// larger ones up to the path's bound of 10¹², and their neighbours one ulp away (which do not).
    @Test func thousandthsMatchDescription() {
        var values: [Double] = []
        for n in -200_000...200_000 { values.append(Double(n) / 1000) }
        var g = SplitMix64(seed: 0x7E0_0A5E)
        for _ in 0..<50_000 {
            let n = Int64(g.next() % 1_000_000_000_000_000) - 500_000_000_000_000
            values.append(Double(n) / 1000)
            values.append(Double(n % 100_000_000) / 1000)
        }
        values += [0.001, 0.0015, 0.0009, 0.01, 0.005, 999_999_999_999.999, 1e12 - 0.5, 1e12 + 0.5, 0.35, 0.42, 0.58]
        for v in values {
            for u in [v, v.nextUp, v.nextDown] where u.isFinite {
                #expect(JSON.double(u).serialized() == u.description, "\(u)")
            }
        }
    }

    @Test func randomWholeAndFractionalValuesMatchDescription() {
        var g = SplitMix64(seed: 0xD0_0B1E)
        for _ in 0..<50_000 {
            let whole = Double(Int64(bitPattern: g.next()) >> Int(g.next() % 63))
            let any = Double(bitPattern: g.next())
            for v in [whole, -whole, any, whole / 2, whole / 4] where v.isFinite {
                #expect(JSON.double(v).serialized() == v.description)
            }
        }
    }
}
