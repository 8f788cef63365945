/// Strings: UTF-8 validation, escapes and surrogate pairs.
///
/// Strings without escapes, the common case on the wire, are validated in place and become a `String`
/// straight from the input bytes; only strings with a backslash are copied through `scratch`.
extension JSONParser {
    /// Parses a string whose opening quote is at `position`, leaving `position` after the closing one.
    mutating func parseString() throws(JSONError) -> String {
        let quote = position
        position += 1
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                try checkLength(position - start, quote: quote)
                let string = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
                position += 1
                return string
            } else if byte == UInt8(ascii: "\\") {
                return try parseEscapedString(quote: quote, start: start)
            } else if byte < 0x20 {
                throw controlCharacter(byte)
            } else if byte < 0x80 {
                position += 1
            } else {
                try skipUTF8Sequence()
            }
        }
        throw unexpected("unterminated string (it starts at byte \(quote))")
    }

    /// The slow path, entered at the first backslash: copies what was scanned so far into `scratch`
    /// and decodes the rest there.
    private mutating func parseEscapedString(quote: Int, start: Int) throws(JSONError) -> String {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<position]))
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return String(decoding: scratch, as: UTF8.self)
            } else if byte == UInt8(ascii: "\\") {
                try decodeEscape()
            } else if byte < 0x20 {
                throw controlCharacter(byte)
            } else if byte < 0x80 {
                scratch.append(byte)
                position += 1
            } else {
                let sequenceStart = position
                try skipUTF8Sequence()
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[sequenceStart..<position]))
            }
            try checkLength(scratch.count, quote: quote)
        }
        throw unexpected("unterminated string (it starts at byte \(quote))")
    }

    private func checkLength(_ length: Int, quote: Int) throws(JSONError) {
        guard length <= limits.maxStringBytes else {
            throw JSONError(.stringTooLong, at: quote, "string longer than \(limits.maxStringBytes) bytes")
        }
    }

    private func controlCharacter(_ byte: UInt8) -> JSONError {
        JSONError(.controlCharacter, at: position, "control character \(hex(byte)) must be escaped in a string")
    }

    /// Decodes the escape at `position` (a backslash) into `scratch`.
    private mutating func decodeEscape() throws(JSONError) {
        let escape = position
        position += 1
        guard position < bytes.count else { throw unexpected("unterminated escape sequence") }
        let letter = bytes[position]
        position += 1
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(letter)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            let unit = try readHex4(escape: escape)
            var scalar = unit
            if unit >= 0xD800, unit <= 0xDBFF {
                guard position < bytes.count else { throw unexpected("unterminated string") }
                guard bytes[position] == UInt8(ascii: "\\") else {
                    throw loneSurrogate(unit, at: escape, "is not followed by a low surrogate escape")
                }
                guard position + 1 < bytes.count else {
                    position += 1
                    throw unexpected("unterminated escape sequence")
                }
                guard bytes[position + 1] == UInt8(ascii: "u") else {
                    throw loneSurrogate(unit, at: escape, "is not followed by a low surrogate escape")
                }
                let lowEscape = position
                position += 2
                let low = try readHex4(escape: lowEscape)
                guard low >= 0xDC00, low <= 0xDFFF else {
                    throw loneSurrogate(unit, at: escape, "is followed by \\u\(hex4(low)), not a low surrogate")
                }
                scalar = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
            } else if unit >= 0xDC00, unit <= 0xDFFF {
                throw loneSurrogate(unit, at: escape, "has no high surrogate before it")
            }
            appendUTF8(scalar)
        default:
            throw JSONError(
                .invalidEscape, at: escape, "invalid escape sequence: backslash followed by \(describe(letter))")
        }
    }

    private mutating func readHex4(escape: Int) throws(JSONError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard position < bytes.count else { throw unexpected("unterminated \\u escape") }
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default:
                throw JSONError(.invalidEscape, at: escape, "\\u must be followed by four hex digits")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    private func loneSurrogate(_ unit: UInt32, at offset: Int, _ problem: String) -> JSONError {
        JSONError(.loneSurrogate, at: offset, "the UTF-16 surrogate \\u\(hex4(unit)) \(problem)")
    }

    private func hex4(_ value: UInt32) -> String {
        String(hex(UInt8(value >> 8)).dropFirst(2)) + String(hex(UInt8(value & 0xFF)).dropFirst(2))
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case ..<0x80:
            scratch.append(UInt8(scalar))
        case ..<0x800:
            scratch.append(UInt8(0xC0 | scalar >> 6))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        case ..<0x10000:
            scratch.append(UInt8(0xE0 | scalar >> 12))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | scalar >> 18))
            scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// Checks one multi-byte UTF-8 sequence at `position` against the Unicode Standard's table of
    /// well-formed byte sequences (Table 3-7) and skips it. The table's narrowed second-byte ranges
    /// are what exclude overlong forms (E0, F0), encoded surrogates (ED) and code points past
    /// U+10FFFF (F4).
    private mutating func skipUTF8Sequence() throws(JSONError) {
        let lead = bytes[position]
        let length: Int
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: (length, lower) = (3, 0xA0)
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: (length, upper) = (3, 0x9F)
        case 0xF0: (length, lower) = (4, 0x90)
        case 0xF1...0xF3: length = 4
        case 0xF4: (length, upper) = (4, 0x8F)
        case 0x80...0xBF: throw invalidUTF8("unexpected continuation byte \(hex(lead))")
        case 0xC0, 0xC1: throw invalidUTF8("overlong encoding (lead byte \(hex(lead)))")
        default: throw invalidUTF8("byte \(hex(lead)) never appears in UTF-8")
        }
        for index in 1..<length {
            guard position + index < bytes.count else {
                throw JSONError(.unexpectedEnd, at: position + index, "unexpected end of input inside a UTF-8 sequence")
            }
            let byte = bytes[position + index]
            let (low, high) = index == 1 ? (lower, upper) : (0x80, 0xBF)
            guard byte >= low, byte <= high else {
                let problem: String
                switch (lead, index == 1 && byte >= 0x80 && byte <= 0xBF) {
                case (0xE0, true), (0xF0, true): problem = "overlong encoding"
                case (0xED, true): problem = "encoded UTF-16 surrogate"
                case (0xF4, true): problem = "code point above U+10FFFF"
                default: problem = "truncated sequence (\(hex(byte)) is not a continuation byte)"
                }
                throw invalidUTF8("\(problem) in the sequence starting with \(hex(lead))")
            }
        }
        position += length
    }

    private func invalidUTF8(_ problem: String) -> JSONError {
        JSONError(.invalidUTF8, at: position, "invalid UTF-8: \(problem)")
    }
}
