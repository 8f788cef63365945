/// Writes `JSON` values as UTF-8 bytes.
///
/// Deterministic by construction, because replayed ticks must be byte-identical to live ones: object
/// members in insertion order, integers in decimal, doubles as Swift's shortest round-trip
/// `description` (which is always a valid JSON number, e.g. `1.0`, `1e-05`, `1.2345e+20`), strings
/// with the minimal escapes (`\"`, `\\`, and control characters as `\b \f \n \r \t` or `\u00xx`;
/// everything else, U+2028 and U+2029 included, is written as its UTF-8 bytes). A non-finite double
/// has no JSON spelling and is written as `null`; protocol code validates numbers before they get
/// here, so this only keeps the output parseable.
///
/// The daemon encodes every tick for every frame, so this writes into its own growable raw buffer
/// (no uniqueness check per byte, unlike `[UInt8].append`) and builds no intermediate `String`s.
/// Doubles go through `TextOutputStreamable`, whose `_writeASCII` hook hands over the digits from a
/// stack buffer; if a future standard library stops calling it, `write(_:)` receives the same text.
struct JSONSerializer: JSONValueWriter {
    private var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int
    /// Whether `base` was allocated here (after growing): the first buffer is the caller's stack.
    private var ownsBase = false

    private init(stack: UnsafeMutableBufferPointer<UInt8>) {
        capacity = stack.count
        base = stack.baseAddress!
    }

    /// Runs `body` on a fresh serializer and returns what it wrote, releasing the buffer afterwards.
    ///
    /// It writes into 512 bytes on the stack first (an event, a reply or a digest's input fits), and
    /// moves to the heap only past that: the daemon writes several bodies per command.
    static func withSerializer<Result>(
        _ body: (inout JSONSerializer) -> Void, _ result: (UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 512) { stack in
            var serializer = JSONSerializer(stack: stack)
            defer { if serializer.ownsBase { serializer.base.deallocate() } }
            body(&serializer)
            return result(UnsafeBufferPointer(start: serializer.base, count: serializer.count))
        }
    }

    /// `string` as a JSON string literal, for error messages.
    static func quoted(_ string: String) -> String {
        withSerializer({ $0.writeString(string) }, { String(decoding: $0, as: UTF8.self) })
    }

    // MARK: - Values

    mutating func writeCompact(_ value: JSON) {
        switch value {
        case .null: append("null")
        case .bool(let flag): append(flag ? "true" : "false")
        case .int(let integer): writeInt(integer)
        case .double(let double): writeDouble(double)
        case .string(let string): writeString(string)
        case .array(let elements):
            append(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if !first { append(UInt8(ascii: ",")) }
                first = false
                writeCompact(element)
            }
            append(UInt8(ascii: "]"))
        case .object(let object):
            append(UInt8(ascii: "{"))
            var first = true
            for member in object.members {
                if !first { append(UInt8(ascii: ",")) }
                first = false
                writeString(member.key)
                append(UInt8(ascii: ":"))
                writeCompact(member.value)
            }
            append(UInt8(ascii: "}"))
        }
    }

    /// Two-space indentation, `"key": value`, one element or member per line, `[]` and `{}` for
    /// empty containers, and no trailing newline: the layout `jq` and most editors use.
    mutating func writePretty(_ value: JSON, indent: Int) {
        switch value {
        case .array(let elements) where !elements.isEmpty:
            append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                append(index == 0 ? "\n" : ",\n")
                appendSpaces(indent + 2)
                writePretty(element, indent: indent + 2)
            }
            append(UInt8(ascii: "\n"))
            appendSpaces(indent)
            append(UInt8(ascii: "]"))
        case .object(let object) where object.count > 0:
            append(UInt8(ascii: "{"))
            for (index, member) in object.members.enumerated() {
                append(index == 0 ? "\n" : ",\n")
                appendSpaces(indent + 2)
                writeString(member.key)
                append(": ")
                writePretty(member.value, indent: indent + 2)
            }
            append(UInt8(ascii: "\n"))
            appendSpaces(indent)
            append(UInt8(ascii: "}"))
        default:
            writeCompact(value)
        }
    }

    // MARK: - Buffer

    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if capacity - count < extra { grow(toAtLeast: count + extra) }
    }

    private mutating func grow(toAtLeast minimum: Int) {
        let newCapacity = max(minimum, capacity * 2)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.initialize(from: base, count: count)
        if ownsBase { base.deallocate() }
        base = newBase
        ownsBase = true
        capacity = newCapacity
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(bytes.count)
        (base + count).initialize(from: source, count: bytes.count)
        count += bytes.count
    }

    mutating func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private mutating func appendSpaces(_ spaces: Int) {
        reserve(spaces)
        (base + count).initialize(repeating: UInt8(ascii: " "), count: spaces)
        count += spaces
    }
}

extension JSON {
    /// Compact UTF-8 text (no whitespace), deterministic: the same value always yields the same bytes.
    package func serialized() -> String {
        JSONSerializer.withSerializer({ $0.writeCompact(self) }, { String(decoding: $0, as: UTF8.self) })
    }

    /// Compact UTF-8 bytes; see `serialize(into:)`.
    package func serializedBytes() -> [UInt8] {
        JSONSerializer.withSerializer({ $0.writeCompact(self) }, { Array($0) })
    }

    /// Appends the compact encoding to `buffer`, for callers that frame several values in one buffer
    /// or reuse one across messages.
    package func serialize(into buffer: inout [UInt8]) {
        JSONSerializer.withSerializer({ $0.writeCompact(self) }, { buffer.append(contentsOf: $0) })
    }

    /// Human-readable text with two-space indentation, for the CLI and docs; parses back to the same
    /// value as `serialized()`.
    package func prettyPrinted() -> String {
        JSONSerializer.withSerializer({ $0.writePretty(self, indent: 0) }, { String(decoding: $0, as: UTF8.self) })
    }
}
