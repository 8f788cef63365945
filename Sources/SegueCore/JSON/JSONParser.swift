/// A strict RFC 8259 recursive-descent parser over a contiguous byte buffer.
///
/// Strict because a protocol that must replay bit for bit cannot afford two readers disagreeing about
/// one message: whatever is ambiguous or extended elsewhere (duplicate keys, lone surrogates, `NaN`,
/// trailing commas, a byte-order mark, invalid UTF-8) is rejected here with the offset of the first
/// offending byte. Recursion depth equals nesting depth, which `JSONLimits.maxDepth` bounds.
struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let limits: JSONLimits
    var position = 0
    private var depth = 0
    /// Reused buffer for strings that contain escapes; strings without them are decoded in place.
    var scratch: [UInt8] = []

    /// Below this many members, duplicate keys are found by a linear scan, which beats hashing for the
    /// small objects the protocol uses; larger objects switch to a set.
    private static let linearKeyScanLimit = 16

    init(_ bytes: UnsafeBufferPointer<UInt8>, limits: JSONLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    /// Parses exactly one value surrounded by optional whitespace.
    mutating func parseDocument() throws(JSONError) -> JSON {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if position < bytes.count {
            throw JSONError(.trailingData, at: position, "unexpected \(describe(bytes[position])) after the JSON value")
        }
        return value
    }

    // MARK: - Values

    private mutating func parseValue() throws(JSONError) -> JSON {
        guard position < bytes.count else { throw unexpected("expected a JSON value") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try parseLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try parseLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try parseLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try parseNumber()
        default:
            throw unexpected("expected a JSON value")
        }
    }

    private mutating func parseLiteral(_ literal: StaticString) throws(JSONError) {
        let start = position
        let count = literal.utf8CodeUnitCount
        for index in 0..<count {
            let expected = literal.utf8Start[index]
            guard position < bytes.count, bytes[position] == expected else {
                throw unexpected("expected '\(literal)' (it starts at byte \(start))")
            }
            position += 1
        }
    }

    private mutating func parseArray() throws(JSONError) -> JSON {
        try enterContainer()
        defer { depth -= 1 }
        position += 1  // '['
        var elements: [JSON] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            elements.append(try parseValue())
            skipWhitespace()
            guard position < bytes.count else { throw unexpected("expected ',' or ']' after an array element") }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position += 1
                skipWhitespace()
                if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                    throw JSONError(.unexpectedByte, at: position, "a trailing comma before ']' is not allowed")
                }
            case UInt8(ascii: "]"):
                position += 1
                return .array(elements)
            default:
                throw unexpected("expected ',' or ']' after an array element")
            }
        }
    }

    private mutating func parseObject() throws(JSONError) -> JSON {
        try enterContainer()
        defer { depth -= 1 }
        position += 1  // '{'
        var members: [(key: String, value: JSON)] = []
        var keySet: Set<String>? = nil
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return .object(JSONObject(members))
        }
        // A request's objects have a handful of members: one allocation instead of growing 1, 2, 4.
        members.reserveCapacity(4)
        while true {
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw unexpected("expected a string key in double quotes")
            }
            let keyOffset = position
            let key = try parseString()
            if members.count < Self.linearKeyScanLimit {
                for member in members where member.key == key { throw duplicate(key, at: keyOffset) }
            } else {
                if keySet == nil { keySet = Set(members.map(\.key)) }
                if !keySet!.insert(key).inserted { throw duplicate(key, at: keyOffset) }
            }
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
                throw unexpected("expected ':' after an object key")
            }
            position += 1
            skipWhitespace()
            members.append((key: key, value: try parseValue()))
            skipWhitespace()
            guard position < bytes.count else { throw unexpected("expected ',' or '}' after an object member") }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position += 1
                skipWhitespace()
                if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                    throw JSONError(.unexpectedByte, at: position, "a trailing comma before '}' is not allowed")
                }
            case UInt8(ascii: "}"):
                position += 1
                return .object(JSONObject(members))
            default:
                throw unexpected("expected ',' or '}' after an object member")
            }
        }
    }

    private mutating func enterContainer() throws(JSONError) {
        depth += 1
        guard depth <= limits.maxDepth else {
            depth -= 1
            throw JSONError(
                .tooDeep, at: position, "arrays and objects are nested deeper than \(limits.maxDepth) levels")
        }
    }

    // MARK: - Numbers

    /// Validates the RFC 8259 number grammar byte by byte, then converts: integers that fit `Int64`
    /// become `.int`; everything else goes through the standard library's correctly rounded
    /// `Double(_:)`, which only ever sees text the grammar has already accepted.
    private mutating func parseNumber() throws(JSONError) -> JSON {
        let start = position
        let negative = bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        let integerStart = position
        try expectDigit(after: "'-'")
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count, isDigit(bytes[position]) {
                throw JSONError(.invalidNumber, at: integerStart, "leading zeros are not allowed in numbers")
            }
        } else {
            skipDigits()
        }
        let integerEnd = position
        var isInteger = true
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            try expectDigit(after: "the decimal point")
            skipDigits()
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            try expectDigit(after: "the exponent marker")
            skipDigits()
        }
        if isInteger, let value = integerValue(integerStart..<integerEnd, negative: negative) {
            // "-0" keeps its sign as a double; Int64 has no negative zero.
            return negative && value == 0 ? .double(-0.0) : .int(value)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            let shown = text.utf8.count <= 40 ? text : String(text.prefix(40)) + "..."
            throw JSONError(.numberOutOfRange, at: start, "number out of range: \(shown) does not fit a 64-bit float")
        }
        return .double(value)
    }

    private func integerValue(_ digits: Range<Int>, negative: Bool) -> Int64? {
        var value: Int64 = 0
        for index in digits {
            let digit = Int64(bytes[index] &- UInt8(ascii: "0"))
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            let (next, carry) =
                negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            if overflow || carry { return nil }
            value = next
        }
        return value
    }

    private mutating func expectDigit(after what: String) throws(JSONError) {
        guard position < bytes.count else { throw unexpected("expected a digit after \(what)") }
        guard isDigit(bytes[position]) else {
            throw JSONError(
                .invalidNumber, at: position, "expected a digit after \(what), found \(describe(bytes[position]))")
        }
    }

    private mutating func skipDigits() {
        while position < bytes.count, isDigit(bytes[position]) { position += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    // MARK: - Helpers

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// The error for the byte at `position` not being what `expectation` describes, or for the input
    /// having ended there.
    func unexpected(_ expectation: String) -> JSONError {
        guard position < bytes.count else {
            return JSONError(.unexpectedEnd, at: position, "unexpected end of input: \(expectation)")
        }
        return JSONError(.unexpectedByte, at: position, "\(expectation), found \(describe(bytes[position]))")
    }

    private func duplicate(_ key: String, at offset: Int) -> JSONError {
        let shown = JSONSerializer.quoted(key.utf8.count <= 64 ? key : String(key.prefix(64)) + "...")
        return JSONError(.duplicateKey, at: offset, "duplicate object key \(shown)")
    }

    /// A byte as a human reads it: `'x'` when printable ASCII, `byte 0xC3` otherwise.
    func describe(_ byte: UInt8) -> String {
        if byte >= 0x21, byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        if byte == 0x20 { return "a space" }
        return "byte " + hex(byte)
    }

    func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        return String(
            decoding: [UInt8(ascii: "0"), UInt8(ascii: "x"), digits[Int(byte >> 4)], digits[Int(byte & 15)]],
            as: UTF8.self)
    }
}
