extension Tick {
    /// The tick's wire body, written straight into bytes.
    ///
    /// The frame loop encodes every tick of every navigator in flight each frame, so this skips the
    /// `JSON` tree that `json` builds (a dozen small allocations per tick); the loop itself reuses one
    /// `TickEncoder` and allocates nothing per tick. It must produce exactly `json.serializedBytes()`,
    /// byte for byte, because replay compares bodies; a test holds the two together over randomized
    /// ticks.
    package func encoded() -> [UInt8] {
        let encoder = TickEncoder()
        encoder.encode(self)
        return Array(encoder.body)
    }
}

/// Swift's shortest round-trip digits for the doubles a tick usually carries (a fraction, a curve's
/// progress, an offset: not whole, between 2⁻¹⁰ and 2²⁰ in magnitude), found with one 64 × 64-bit
/// multiplication instead of the standard library's general search.
///
/// Swift's `description` picks, among the decimals that read back as the double (those strictly
/// inside half an ulp of it), the ones with the fewest significant digits, and of those the closest
/// to the double ("Always Short", "Always Close" in the standard library's
/// `FloatingPointToString.swift`). Here that interval is computed exactly, scaled by 10^k so that it is
/// at least 1 wide, and the shortest decimals in it are the multiples of the largest power of ten
/// that has one there. Wherever a rule the search does not settle could matter (a decimal exactly on
/// the interval's edge, an exact tie between two, a power of two's lopsided interval, a whole
/// result) it answers `nil` and the caller falls back to `description`; tests compare the two over
/// millions of values.
enum ShortestDecimal {
    /// 10⁰ … 10¹⁹.
    static let powersOfTen: [UInt64] = {
        var powers: [UInt64] = [1]
        for _ in 1...19 { powers.append(powers[powers.count - 1] * 10) }
        return powers
    }()

    /// `value`'s magnitude as `digits` × 10^−`fractionDigits`, with `fractionDigits` ≥ 1 and
    /// `digits` free of trailing zeros; `nil` outside the range above or in the cases the search
    /// leaves to `description`.
    @inline(__always)
    static func digits(of value: Double) -> (digits: UInt64, fractionDigits: Int)? {
        let exponent = Int(value.exponentBitPattern) - 1023
        // 2⁻¹⁰ ≤ |value| < 2²⁰, not a power of two (whose interval is narrower below than above).
        guard exponent >= -10, exponent < 20, value.significandBitPattern != 0 else { return nil }
        let significand = value.significandBitPattern | (1 << 52)
        // |value| = significand / 2^shift, 33 ≤ shift ≤ 62.
        let shift = 52 - exponent
        // The smallest k with 10^k ≥ 2^shift: ⌊shift · log₁₀ 2⌋ (78913 / 2¹⁸, exact for these shifts)
        // plus one, as no power of two is a power of ten. Then half an ulp scaled by 10^k is at least ½.
        let k = (shift * 78913) >> 18 + 1
        let scale = powersOfTen[k]
        // Twice |value| · 10^k, and the interval's ends, over the denominator 2^(shift + 1): below 2¹²⁰.
        let (high, low) = significand.multipliedFullWidth(by: scale)
        let twice = (UInt128(high) << 64 | UInt128(low)) << 1
        let upper = twice + UInt128(scale)
        let lower = twice - UInt128(scale)
        let bits = shift + 1
        let mask = (UInt128(1) << bits) - 1
        // An end that is a whole number could itself be a candidate, whose inclusion depends on
        // rounding rules not settled here.
        guard upper & mask != 0, lower & mask != 0 else { return nil }
        let upperWhole = UInt64(truncatingIfNeeded: upper >> bits)
        let lowerWhole = UInt64(truncatingIfNeeded: lower >> bits)
        // The candidates at a power 10^p are its multiples y with lowerWhole < y ≤ upperWhole.
        guard upperWhole > lowerWhole else { return nil }
        var unit: UInt64 = 1
        var power = 0
        while upperWhole / (unit * 10) * (unit * 10) > lowerWhole {
            unit *= 10
            power += 1
        }
        // The candidate nearest the value itself (|value| · 10^k = whole + fraction / 2^bits).
        let whole = UInt64(truncatingIfNeeded: twice >> bits)
        let fraction = twice & mask
        let remainder = whole % unit
        let twiceOffset = (UInt128(remainder) << bits + fraction) << 1
        let unitScaled = UInt128(unit) << bits
        guard twiceOffset != unitScaled else { return nil }  // a tie: Swift rounds it to even
        var digits = whole / unit + (twiceOffset > unitScaled ? 1 : 0)
        digits = min(max(digits, lowerWhole / unit + 1), upperWhole / unit)
        let fractionDigits = k - power
        guard fractionDigits > 0 else { return nil }
        return (digits, fractionDigits)
    }
}
