/// How JSON values are spelled, byte for byte, shared by every writer that produces wire bodies.
///
/// Replayed ticks and events must be byte-identical to live ones, so there is exactly one spelling
/// of each value: `JSONSerializer` (growable, checks capacity on every append) and `TickWriter`
/// (the frame loop's unchecked writer into a buffer reserved up front) differ only in their appends.
protocol JSONValueWriter: TextOutputStream {
    /// Makes room for `extra` more bytes, or does nothing when the caller reserved the whole body.
    mutating func reserve(_ extra: Int)
    mutating func append(_ byte: UInt8)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>)
    mutating func append(_ text: StaticString)
}

extension JSONValueWriter {
    /// Decimal, with a leading `-`.
    mutating func writeInt(_ value: Int64) {
        if value < 0 { append(UInt8(ascii: "-")) }
        // Digits are produced last first, into a stack buffer, then appended in order.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var magnitude = value.magnitude
        withUnsafeMutableBytes(of: &digits) { raw in
            let end = raw.baseAddress!.assumingMemoryBound(to: UInt8.self) + raw.count
            var start = end
            repeat {
                start -= 1
                start.pointee = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            append(UnsafeBufferPointer(start: start, count: end - start))
        }
    }

    /// Swift's shortest round-trip `description`, which is always a valid JSON number (`1.0`,
    /// `1e-05`); a non-finite double has no JSON spelling and is written as `null`.
    mutating func writeDouble(_ value: Double) {
        guard value.isFinite else { return append("null") }
        // Most numbers in a tick are whole (0, 1, an offset of exactly one width) or halves (an
        // anchor). Swift spells a whole double below 2^53 as its integer plus ".0", and 0.5 as "0.5";
        // writing those directly skips the shortest-digits search, with the very same bytes.
        if value == value.rounded(.towardZero), value.magnitude < 1e15 {
            if value == 0 {
                append(value.sign == .minus ? "-0.0" : "0.0")
            } else {
                writeInt(Int64(value))
                append(".0")
            }
            return
        }
        if value == 0.5 { return append("0.5") }
        if writeThousandths(value) { return }
        value.write(to: &self)
    }

    /// A double that is the nearest to some n / 1000 (an animator's 0.35 s, a curve's 0.42), with
    /// 0.001 ≤ |value| < 10¹²: Swift's shortest round-trip digits are exactly those three decimals
    /// less trailing zeros, in plain notation. Any other decimal of at most three places is at least
    /// 0.001 away, far more than the spacing of doubles below 10¹², so none shorter round-trips.
    /// Returns false, writing nothing, for every other value.
    @inline(__always)
    private mutating func writeThousandths(_ value: Double) -> Bool {
        guard value.magnitude >= 0.001, value.magnitude < 1e12 else { return false }
        let scaled = (value * 1000).rounded()
        guard scaled / 1000 == value else { return false }
        let thousandths = Int64(scaled).magnitude
        var fraction = thousandths % 1000
        // Whole numbers take the path above; this keeps the loop below finite whatever the caller.
        guard fraction != 0 else { return false }
        if value < 0 { append(UInt8(ascii: "-")) }
        writeInt(Int64(thousandths / 1000))
        var digits = 3
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        var text: (UInt8, UInt8, UInt8, UInt8) = (UInt8(ascii: "."), 0, 0, 0)
        withUnsafeMutableBytes(of: &text) { raw in
            for index in stride(from: digits, to: 0, by: -1) {
                raw[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: fraction % 10)
                fraction /= 10
            }
            append(UnsafeBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: digits + 1))
        }
        return true
    }

    /// A string literal with the minimal escapes: `\"`, `\\`, and control characters as
    /// `\b \f \n \r \t` or `\u00xx`; everything else as its UTF-8 bytes.
    mutating func writeString(_ string: String) {
        var string = string
        string.withUTF8 { utf8 in
            reserve(utf8.count + 2)
            append(UInt8(ascii: "\""))
            var runStart = 0
            var index = 0
            while index < utf8.count {
                // Eight bytes at a time while none of them needs an escape (most strings: ids, names,
                // digests); byte by byte where one might.
                if utf8.count - index >= 8,
                    !Self.hasByteToEscape(UnsafeRawPointer(utf8.baseAddress! + index).loadUnaligned(as: UInt64.self))
                {
                    index += 8
                    continue
                }
                let byte = utf8[index]
                if Self.needsEscape(byte) {
                    append(UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                    appendEscape(byte)
                    runStart = index + 1
                }
                index += 1
            }
            append(UnsafeBufferPointer(rebasing: utf8[runStart...]))
            append(UInt8(ascii: "\""))
        }
    }

    @inline(__always)
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// Whether any of the eight bytes of `word` is below 0x20, `"` or `\\`, with "determine if a word
    /// has a byte less than n" and "has a zero byte" from Sean Anderson's Bit Twiddling Hacks. A
    /// borrow can only flag a byte above one that really matches, so the answer for the whole word
    /// is exact (bytes of 0x80 and above, UTF-8's multi-byte sequences, are never flagged).
    @inline(__always)
    private static func hasByteToEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let control = (word &- ones &* 0x20) & ~word
        let quote = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
        let backslash = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
        let quoteZero = (quote &- ones) & ~quote
        let backslashZero = (backslash &- ones) & ~backslash
        return (control | quoteZero | backslashZero) & highs != 0
    }

    private mutating func appendEscape(_ byte: UInt8) {
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
            append("\\u00")
            append(hexDigits.utf8Start[Int(byte >> 4)])
            append(hexDigits.utf8Start[Int(byte & 0x0F)])
            return
        }
        append(UInt8(ascii: "\\"))
        append(letter)
    }

    // MARK: TextOutputStream, for `Double.write(to:)`

    /// Not reached by `Double.write(to:)` today (it hands its digits to `_writeASCII`); kept correct in
    /// case a later standard library stops doing so.
    mutating func write(_ string: String) {
        var string = string
        string.withUTF8 { bytes in
            reserve(bytes.count)
            append(bytes)
        }
    }

    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
        reserve(buffer.count)
        append(buffer)
    }
}
