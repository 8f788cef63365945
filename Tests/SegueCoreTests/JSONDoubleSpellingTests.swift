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
