/// Writes `JSON` values as UTF-8 bytes, appending to a caller-owned buffer.
///
/// Deterministic by construction, because replayed ticks must be byte-identical to live ones: object
/// members in insertion order, integers in decimal, doubles as Swift's shortest round-trip
/// `description` (which is always a valid JSON number, e.g. `1.0`, `1e-05`, `1.2345e+20`), strings
/// with the minimal escapes (`\"`, `\\`, and control characters as `\b \f \n \r \t` or `\u00xx`;
/// everything else, U+2028 and U+2029 included, is written as its UTF-8 bytes). A non-finite double
/// has no JSON spelling and is written as `null`; protocol code validates numbers before they get
/// here, so this only keeps the output parseable.
///
/// The daemon encodes every tick for every subscriber, so this appends bytes to an `[UInt8]` and
/// never builds intermediate `String`s, except for a double's `description`.
enum JSONSerializer {
    static func writeCompact(_ value: JSON, into out: inout [UInt8]) {
        switch value {
        case .null: appendASCII("null", into: &out)
        case .bool(let flag): appendASCII(flag ? "true" : "false", into: &out)
        case .int(let integer): writeInt(integer, into: &out)
        case .double(let double): writeDouble(double, into: &out)
        case .string(let string): writeString(string, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                writeCompact(element, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            var first = true
            for member in object.members {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                writeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                writeCompact(member.value, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Two-space indentation, `"key": value`, one element or member per line, `[]` and `{}` for
    /// empty containers, and no trailing newline: the layout `jq` and most editors use.
    static func writePretty(_ value: JSON, indent: Int, into out: inout [UInt8]) {
        switch value {
        case .array(let elements) where !elements.isEmpty:
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                out.append(contentsOf: index == 0 ? [0x0A] : [UInt8(ascii: ","), 0x0A])
                appendSpaces(indent + 2, into: &out)
                writePretty(element, indent: indent + 2, into: &out)
            }
            out.append(0x0A)
            appendSpaces(indent, into: &out)
            out.append(UInt8(ascii: "]"))
        case .object(let object) where object.count > 0:
            out.append(UInt8(ascii: "{"))
            for (index, member) in object.members.enumerated() {
                out.append(contentsOf: index == 0 ? [0x0A] : [UInt8(ascii: ","), 0x0A])
                appendSpaces(indent + 2, into: &out)
                writeString(member.key, into: &out)
                out.append(contentsOf: [UInt8(ascii: ":"), 0x20])
                writePretty(member.value, indent: indent + 2, into: &out)
            }
            out.append(0x0A)
            appendSpaces(indent, into: &out)
            out.append(UInt8(ascii: "}"))
        default:
            writeCompact(value, into: &out)
        }
    }

    static func writeInt(_ value: Int64, into out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    static func writeDouble(_ value: Double, into out: inout [UInt8]) {
        guard value.isFinite else { return appendASCII("null", into: &out) }
        out.append(contentsOf: value.description.utf8)
    }

    static func writeString(_ string: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
            var runStart = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                appendEscape(byte, into: &out)
                runStart = index + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func appendEscape(_ byte: UInt8, into out: inout [UInt8]) {
        let letter: UInt8
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): letter = byte
        case 0x08: letter = UInt8(ascii: "b")
        case 0x09: letter = UInt8(ascii: "t")
        case 0x0A: letter = UInt8(ascii: "n")
        case 0x0C: letter = UInt8(ascii: "f")
        case 0x0D: letter = UInt8(ascii: "r")
        default:
            let hexDigits: StaticString = "0123456789abcdef"
            out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            out.append(hexDigits.utf8Start[Int(byte >> 4)])
            out.append(hexDigits.utf8Start[Int(byte & 0x0F)])
            return
        }
        out.append(UInt8(ascii: "\\"))
        out.append(letter)
    }

    private static func appendASCII(_ text: StaticString, into out: inout [UInt8]) {
        text.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    private static func appendSpaces(_ count: Int, into out: inout [UInt8]) {
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: count))
    }
}

extension JSON {
    /// Compact UTF-8 text (no whitespace), deterministic: the same value always yields the same bytes.
    public func serialized() -> String { String(decoding: serializedBytes(), as: UTF8.self) }

    /// Compact UTF-8 bytes; see `serialize(into:)`.
    public func serializedBytes() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        JSONSerializer.writeCompact(self, into: &bytes)
        return bytes
    }

    /// Appends the compact encoding to `buffer`, for callers that reuse one buffer across messages
    /// (e.g. one per tick loop) and so allocate nothing per message once it has grown.
    public func serialize(into buffer: inout [UInt8]) {
        JSONSerializer.writeCompact(self, into: &buffer)
    }

    /// Human-readable text with two-space indentation, for the CLI and docs; parses back to the same
    /// value as `serialized()`.
    public func prettyPrinted() -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        JSONSerializer.writePretty(self, indent: 0, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
