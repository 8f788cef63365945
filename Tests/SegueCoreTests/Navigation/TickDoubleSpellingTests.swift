import SeededRandom
import Testing

@testable import SegueCore

/// The tick writer's own path for doubles (`writeTickDouble`, `ShortestDecimal`) spells every value
/// exactly as the serializer does, which is what replayed ticks are compared against.
@Suite struct TickDoubleSpellingTests {
    /// The tick writer's text for `value`, and whether `ShortestDecimal` found its digits.
    static func tickText(_ value: Double) -> String {
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 64)
        defer { buffer.deallocate() }
        var writer = TickWriter(base: buffer)
        writer.writeTickDouble(value)
        return String(decoding: UnsafeBufferPointer(start: buffer, count: writer.count), as: UTF8.self)
    }

    static let edges: [Double] = [
        0, -0.0, 1, -1, 0.5, -0.5, 0.1, 0.2, 0.1 + 0.2, 1.0 / 3, 2.0 / 3, -1.0 / 3, 0.35, 0.42, 0.001, 0.0015,
        0.7071067811865476, 0.9999999999999999, 1.0000000000000002, 0.30000000000000004, 123.456, 1e-4, 1e-5,
        0.0009765625, 0.0009765625.nextUp, 0.0009765625.nextDown, 0.001953125.nextDown, 1_048_576, 1_048_576.0.nextDown,
        1_048_575.5, 1_048_575.123, 524_288.25, 3.141592653589793, 2.718281828459045, 0.49999999999999994,
        0.5000000000000001, 1.5, 2.5, 1e15, 1e16, 123_456.789_012_345, -0.0123456789, .leastNonzeroMagnitude,
        2.2250738585072014e-308,
        .greatestFiniteMagnitude, .infinity, -.infinity, .nan, 1e-7, 0.1 * 3, 0.6 * 0.6, 1 - 0.9, 16.7, 60.000001,
    ]

    @Test(arguments: edges)
    func edgeValuesMatchTheSerializer(value: Double) {
        #expect(Self.tickText(value) == JSON.double(value).serialized())
    }

    /// Random bit patterns across the fast path's range and past both of its ends, with the
    /// neighbours of each: the digits are whatever the double happens to need (mostly 15–17).
    @Test func randomDoublesAroundTheRangeMatchTheSerializer() {
        var g = SplitMix64(seed: 0x71C_D0B1E)
        var found = 0
        for _ in 0..<400_000 {
            // Exponents 2⁻¹⁴ … 2²⁴, either sign, any significand.
            let exponent = UInt64(1023 - 14) + g.next() % 39
            let bits = (g.next() & (1 << 63)) | exponent << 52 | g.next() & ((1 << 52) - 1)
            let value = Double(bitPattern: bits)
            for v in [value, value.nextUp, value.nextDown] {
                if ShortestDecimal.digits(of: v) != nil { found += 1 }
                #expect(Self.tickText(v) == JSON.double(v).serialized(), "\(v.bitPattern)")
            }
        }
        #expect(found > 800_000)
    }

    /// Short decimals (n / 10^j, up to 12 places) and the doubles one and two ulps away: where the
    /// search has to find fewer digits than the double's 17, and where two candidates lie close.
    @Test func shortDecimalsAndTheirNeighboursMatchTheSerializer() {
        var g = SplitMix64(seed: 0x5407_7DEC)
        var found = 0
        for _ in 0..<200_000 {
            let places = Int(g.next() % 12) + 1
            let whole = Double(g.next() % 2_000_000) - 1_000_000
            let value = whole / 1000 + Double(g.next() % 1_000_000_000_000) / ShortestDecimalTests.power(places)
            for v in [value, value.nextUp, value.nextDown, value.nextUp.nextUp, value.nextDown.nextDown] {
                if ShortestDecimal.digits(of: v) != nil { found += 1 }
                #expect(Self.tickText(v) == JSON.double(v).serialized(), "\(v.bitPattern)")
            }
        }
        #expect(found > 300_000)
    }

    /// What a tick carries: elapsed fractions of a frame count, a curve's progress and the offsets
    /// made from it, as the animators compute them.
    @Test func fractionsAndOffsetsMatchTheSerializer() {
        let curve = TimingCurve.easeInOut
        for frames in [1, 7, 18, 21, 36, 60, 144, 3600] {
            for frame in 0...frames {
                let fraction = Double(frame) / Double(frames)
                let progress = curve.progress(atFraction: fraction, duration: Double(frames) / 60)
                for v in [fraction, progress, 1 - progress, -0.3 * progress, (1 - progress) * 1 + progress * 0] {
                    #expect(Self.tickText(v) == JSON.double(v).serialized(), "\(v)")
                }
            }
        }
    }
}

/// The powers of ten the search scales by.
@Suite struct ShortestDecimalTests {
    static func power(_ n: Int) -> Double {
        var p = 1.0
        for _ in 0..<n { p *= 10 }
        return p
    }

    @Test func powersOfTenAreExact() {
        #expect(ShortestDecimal.powersOfTen.count == 20)
        for (n, p) in ShortestDecimal.powersOfTen.enumerated() {
            #expect(p.description == "1" + String(repeating: "0", count: n))
        }
    }

    /// Each exponent of the range, its smallest and largest significands: the digits read back as
    /// the value, with fewer than 18 significant digits.
    @Test(arguments: -10..<20)
    func digitsReadBack(exponent: Int) throws {
        for significand: UInt64 in [1, 2, (1 << 52) - 1, 0x8_0000_0000_0001] {
            let value = Double(
                sign: .plus, exponentBitPattern: UInt(1023 + exponent), significandBitPattern: significand)
            let found = try #require(ShortestDecimal.digits(of: value))
            #expect(found.digits < 100_000_000_000_000_000)
            #expect(Double("\(found.digits)e-\(found.fractionDigits)") == value)
        }
    }
}
