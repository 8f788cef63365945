/// A 64-bit fingerprint of a JSON value that is the same for every spelling of the same value: members
/// in any order, any whitespace, `1` and `1.0`. It tells a retried request from a different request
/// sent under the same idempotency key (docs/protocol.md, "Idempotency").
///
/// It is stored with each command's reply, so it must never change between builds or processes: it is
/// FNV-1a over a canonical encoding spelled out here, not Swift's `Hasher` (seeded per process).
/// Canonical encoding: a type tag, then
/// - `int` (and a `double` holding a whole number that fits in 64 bits): its 8 bytes, little-endian;
/// - other `double`s: the 8 bytes of their bit pattern;
/// - `string`: its UTF-8 length (8 bytes) and bytes;
/// - `array`: its count and elements; `object`: its count and members sorted by the UTF-8 bytes of
///   their keys, each key as a string then its value.
/// Not a defence against someone forging collisions; a guard against a client's bug or a stale id.
extension JSON {
    package var fingerprint: UInt64 {
        var hasher = FNV1a()
        hasher.add(self)
        return hasher.value
    }
}

private struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(byte: UInt8) {
        value ^= UInt64(byte)
        value = value &* 0x0000_0100_0000_01b3
    }

    mutating func add(_ word: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { add(byte: UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
    }

    mutating func add(string: String) {
        add(byte: UInt8(ascii: "s"))
        add(UInt64(string.utf8.count))
        for byte in string.utf8 { add(byte: byte) }
    }

    mutating func add(_ json: JSON) {
        switch json {
        case .null: add(byte: UInt8(ascii: "n"))
        case .bool(let flag): add(byte: flag ? UInt8(ascii: "t") : UInt8(ascii: "f"))
        case .int(let integer):
            add(byte: UInt8(ascii: "i"))
            add(UInt64(bitPattern: integer))
        case .double(let number):
            if let integer = Int64(exactly: number) {
                add(byte: UInt8(ascii: "i"))
                add(UInt64(bitPattern: integer))
            } else {
                add(byte: UInt8(ascii: "d"))
                add(number.bitPattern)
            }
        case .string(let string): add(string: string)
        case .array(let items):
            add(byte: UInt8(ascii: "a"))
            add(UInt64(items.count))
            for item in items { add(item) }
        case .object(let object):
            let members = object.members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            add(byte: UInt8(ascii: "o"))
            add(UInt64(members.count))
            for member in members {
                add(string: member.key)
                add(member.value)
            }
        }
    }
}
