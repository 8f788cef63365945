/// Why a byte sequence is not the JSON we accept, and where.
///
/// `kind` is the stable category callers and tests match on; `message` is the sentence for a human and
/// may be reworded. `offset` is the zero-based byte offset into the input at which the problem was
/// found (for a string that is too long, its opening quote; for a duplicate key, the key's quote).
package struct JSONError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The category of a parse failure.
    package enum Kind: String, Sendable, Equatable, CaseIterable {
        /// The input ended inside a value (including empty input).
        case unexpectedEnd
        /// A byte that the grammar does not allow here: a missing comma or colon, a trailing comma,
        /// a bare word such as `NaN`, a single-quoted string.
        case unexpectedByte
        /// A number that does not follow RFC 8259's grammar: leading zeros, a missing digit.
        case invalidNumber
        /// A number whose magnitude does not fit a `Double` (it would round to infinity).
        case numberOutOfRange
        /// A string containing bytes that are not well-formed UTF-8 (overlong forms, encoded
        /// surrogates, code points above U+10FFFF, truncated sequences).
        case invalidUTF8
        /// A backslash followed by something other than `" \ / b f n r t u`, or `\u` without four hex
        /// digits.
        case invalidEscape
        /// A `\u` escape of a UTF-16 surrogate that is not part of a high-low pair.
        case loneSurrogate
        /// An unescaped control character (U+0000 to U+001F) inside a string.
        case controlCharacter
        /// Non-whitespace after the top-level value.
        case trailingData
        /// An object that names the same member twice.
        case duplicateKey
        /// Arrays and objects nested deeper than `JSONLimits.maxDepth`.
        case tooDeep
        /// A string or key longer than `JSONLimits.maxStringBytes` once unescaped.
        case stringTooLong
    }

    package var kind: Kind
    /// Zero-based byte offset into the input.
    package var offset: Int
    /// What went wrong, phrased as the rest of "invalid JSON at byte N: ...".
    package var message: String

    package init(_ kind: Kind, at offset: Int, _ message: String) {
        self.kind = kind
        self.offset = offset
        self.message = message
    }

    package var description: String { "invalid JSON at byte \(offset): \(message)" }

    /// The line and column (both from 1; columns count characters, not bytes) of `offset` in `input`,
    /// the text that was parsed: where a person editing it by hand looks.
    package func position(in input: [UInt8]) -> (line: Int, column: Int) {
        let before = input.prefix(min(offset, input.count))
        let lineStart = (before.lastIndex(of: 0x0A)).map { $0 + 1 } ?? 0
        let line = 1 + before.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        // Every UTF-8 byte but a continuation byte (10xxxxxx) starts a character.
        let column = 1 + before[lineStart...].reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
        return (line, column)
    }
}
