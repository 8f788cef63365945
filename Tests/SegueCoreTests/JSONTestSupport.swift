import SeededRandom
import SegueCore

/// Structural identity for JSON values, stricter than `==`: `.int(1)` and `.double(1.0)` differ,
/// doubles compare by bit pattern (so `-0.0` differs from `0.0`), and object members must appear in
/// the same order. Round-trip tests use it because `==` would hide a lost case or a reordering.
func identical(_ lhs: JSON, _ rhs: JSON) -> Bool {
    switch (lhs, rhs) {
    case (.null, .null): true
    case (.bool(let a), .bool(let b)): a == b
    case (.int(let a), .int(let b)): a == b
    case (.double(let a), .double(let b)): a.bitPattern == b.bitPattern
    case (.string(let a), .string(let b)): Array(a.utf8) == Array(b.utf8)
    case (.array(let a), .array(let b)): a.count == b.count && zip(a, b).allSatisfy { identical($0, $1) }
    case (.object(let a), .object(let b)):
        a.count == b.count
            && zip(a.members, b.members).allSatisfy {
                Array($0.key.utf8) == Array($1.key.utf8) && identical($0.value, $1.value)
            }
    default: false
    }
}

/// Builds random JSON trees that exercise the awkward corners: every control character, quotes and
/// backslashes, multi-byte and astral scalars, combining marks, extreme and subnormal doubles,
/// integral doubles, `-0.0`, and `Int64`'s bounds.
struct RandomJSON {
    var rng: SplitMix64

    private static let palette: [Unicode.Scalar] = [
        "a", "Z", "0", " ", "\"", "\\", "/", "\u{0}", "\u{8}", "\u{9}", "\u{A}", "\u{C}", "\u{D}", "\u{1F}", "\u{7F}",
        "\u{80}", "é", "\u{301}", "€", "\u{2028}", "\u{2029}", "\u{FEFF}", "\u{FFFF}", "😀", "\u{10FFFF}",
    ]

    mutating func value(depth: Int = 0) -> JSON {
        let pick = Int.random(in: 0..<(depth >= 5 ? 6 : 9), using: &rng)
        switch pick {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .int(integer())
        case 3: return .double(double())
        case 4, 5: return .string(string())
        case 6: return .array((0..<Int.random(in: 0...6, using: &rng)).map { _ in value(depth: depth + 1) })
        default:
            var object = JSONObject()
            for _ in 0..<Int.random(in: 0...8, using: &rng) {
                let key = string()
                if object[key] == nil { object[key] = value(depth: depth + 1) }
            }
            return .object(object)
        }
    }

    mutating func integer() -> Int64 {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: [Int64.min, Int64.max, 0, -1, 1][Int.random(in: 0..<5, using: &rng)]
        case 1: Int64.random(in: -1000...1000, using: &rng)
        default: Int64(bitPattern: rng.next())
        }
    }

    mutating func double() -> Double {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0:
            let special: [Double] = [
                -0.0, 0.0, 1.0, -1.0, 1e308, .greatestFiniteMagnitude, .leastNonzeroMagnitude, .leastNormalMagnitude,
                Double("1e-320")!, 9_223_372_036_854_775_808.0, 0.1, 1e16, 1e-5,
            ]
            return special[Int.random(in: 0..<special.count, using: &rng)]
        case 1:
            return Double(Int.random(in: -100_000...100_000, using: &rng)) / 64
        default:
            // Any finite bit pattern: subnormals, huge exponents, integral values, both signs.
            while true {
                let candidate = Double(bitPattern: rng.next())
                if candidate.isFinite { return candidate }
            }
        }
    }

    mutating func string() -> String {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...12, using: &rng) {
            if Int.random(in: 0..<4, using: &rng) == 0 {
                let raw = UInt32.random(in: 0...0x10FFFF, using: &rng)
                scalars.append(Unicode.Scalar(raw) ?? "?")
            } else {
                scalars.append(Self.palette[Int.random(in: 0..<Self.palette.count, using: &rng)])
            }
        }
        return String(scalars)
    }
}
