import SegueCore
import Testing

/// One input the parser must refuse, with the category and byte offset it must report.
struct MalformedCase: CustomTestStringConvertible, Sendable {
    var bytes: [UInt8]
    var kind: JSONError.Kind
    var offset: Int
    var note: String
    var limits = JSONLimits.default

    static func text(
        _ text: String, _ kind: JSONError.Kind, at offset: Int, _ note: String = "", limits: JSONLimits = .default
    ) -> Self {
        Self(bytes: Array(text.utf8), kind: kind, offset: offset, note: note, limits: limits)
    }

    static func bytes(_ bytes: [UInt8], _ kind: JSONError.Kind, at offset: Int, _ note: String) -> Self {
        Self(bytes: bytes, kind: kind, offset: offset, note: note)
    }

    /// A string literal whose content is `content`: `"` content `"`.
    static func quoted(_ content: [UInt8], _ kind: JSONError.Kind, at offset: Int, _ note: String) -> Self {
        Self(bytes: [0x22] + content + [0x22], kind: kind, offset: offset, note: note)
    }

    var testDescription: String {
        let shown = String(decoding: bytes.prefix(24), as: UTF8.self).debugDescription
        return note.isEmpty ? shown : "\(note): \(shown)"
    }
}

@Suite struct JSONMalformedTests {
    static let structure: [MalformedCase] = [
        .text("", .unexpectedEnd, at: 0, "empty input"),
        .text("   ", .unexpectedEnd, at: 3, "only whitespace"),
        .text("[", .unexpectedEnd, at: 1),
        .text("[1", .unexpectedEnd, at: 2),
        .text("[1,", .unexpectedEnd, at: 3),
        .text("{", .unexpectedEnd, at: 1),
        .text("{\"a\"", .unexpectedEnd, at: 4),
        .text("{\"a\":", .unexpectedEnd, at: 5),
        .text("{\"a\":1", .unexpectedEnd, at: 6),
        .text("\"abc", .unexpectedEnd, at: 4, "unterminated string"),
        .text("tru", .unexpectedEnd, at: 3),
        .text("nul", .unexpectedEnd, at: 3),
        .text("[1,]", .unexpectedByte, at: 3, "trailing comma in an array"),
        .text("{\"a\":1,}", .unexpectedByte, at: 7, "trailing comma in an object"),
        .text("[,1]", .unexpectedByte, at: 1, "leading comma"),
        .text("[1,,2]", .unexpectedByte, at: 3, "double comma"),
        .text("[1 2]", .unexpectedByte, at: 3, "missing comma"),
        .text("[1;2]", .unexpectedByte, at: 2),
        .text("{\"a\" 1}", .unexpectedByte, at: 5, "missing colon"),
        .text("{\"a\"=1}", .unexpectedByte, at: 4),
        .text("{\"a\":1 \"b\":2}", .unexpectedByte, at: 7, "missing comma between members"),
        .text("{a:1}", .unexpectedByte, at: 1, "unquoted key"),
        .text("{'a':1}", .unexpectedByte, at: 1, "single-quoted key"),
        .text("['a']", .unexpectedByte, at: 1, "single-quoted string"),
        .text("{1:1}", .unexpectedByte, at: 1, "number as key"),
        .text("{\"a\":}", .unexpectedByte, at: 5, "missing value"),
        .text("]", .unexpectedByte, at: 0),
        .text("NaN", .unexpectedByte, at: 0),
        .text("Infinity", .unexpectedByte, at: 0),
        .text("nan", .unexpectedByte, at: 1),
        .text("True", .unexpectedByte, at: 0),
        .text("trux", .unexpectedByte, at: 3),
        .text("undefined", .unexpectedByte, at: 0),
        .text("/* c */ 1", .unexpectedByte, at: 0, "comment"),
        .text("\u{B}1", .unexpectedByte, at: 0, "vertical tab is not JSON whitespace"),
        .text("\u{A0}1", .unexpectedByte, at: 0, "no-break space is not JSON whitespace"),
        .text("\u{FEFF}1", .unexpectedByte, at: 0, "byte-order mark"),
        .text("[1]]", .trailingData, at: 3),
        .text("{} {}", .trailingData, at: 3, "two documents"),
        .text("1 2", .trailingData, at: 2),
        .text("truex", .trailingData, at: 4),
        .text("{\"a\":1}}", .trailingData, at: 7),
        .text("1\u{0}", .trailingData, at: 1, "NUL after the value"),
        .text("0x10", .trailingData, at: 1, "hex literal"),
        .text("1.5.3", .trailingData, at: 3),
    ]

    static let numbers: [MalformedCase] = [
        .text("01", .invalidNumber, at: 0, "leading zero"),
        .text("00", .invalidNumber, at: 0),
        .text("-01", .invalidNumber, at: 1),
        .text("[007]", .invalidNumber, at: 1),
        .text("1.", .unexpectedEnd, at: 2),
        .text("[1.]", .invalidNumber, at: 3, "no digit after the point"),
        .text("1.e5", .invalidNumber, at: 2),
        .text(".5", .unexpectedByte, at: 0, "no integer part"),
        .text("+1", .unexpectedByte, at: 0, "explicit plus"),
        .text("-", .unexpectedEnd, at: 1),
        .text("- 1", .invalidNumber, at: 1),
        .text("-a", .invalidNumber, at: 1),
        .text("-Infinity", .invalidNumber, at: 1),
        .text("1e", .unexpectedEnd, at: 2),
        .text("1e+", .unexpectedEnd, at: 3),
        .text("1e+x", .invalidNumber, at: 3),
        .text("[1E]", .invalidNumber, at: 3),
        .text("1e400", .numberOutOfRange, at: 0),
        .text("-1e400", .numberOutOfRange, at: 0),
        .text("[1, 2e999]", .numberOutOfRange, at: 4),
        .text("1.8e308", .numberOutOfRange, at: 0, "just above Double.greatestFiniteMagnitude"),
        .text("1" + String(repeating: "0", count: 400), .numberOutOfRange, at: 0, "401-digit integer"),
    ]

    static let strings: [MalformedCase] = [
        .text(#""\x""#, .invalidEscape, at: 1),
        .text(#""\'""#, .invalidEscape, at: 1),
        .text(#""\U0041""#, .invalidEscape, at: 1),
        .text(#""\u12""#, .invalidEscape, at: 1, "three hex digits"),
        .text(#""\u12G4""#, .invalidEscape, at: 1),
        .text(#""ab\"#, .unexpectedEnd, at: 4, "backslash at the end"),
        .text(#""\u00"#, .unexpectedEnd, at: 5),
        .text(#""\uD800""#, .loneSurrogate, at: 1, "high surrogate alone"),
        .text(#""\uDC00""#, .loneSurrogate, at: 1, "low surrogate alone"),
        .text(#""\uDFFF\uD800""#, .loneSurrogate, at: 1, "pair in the wrong order"),
        .text(#""\uD800\u0041""#, .loneSurrogate, at: 1, "high surrogate then a non-surrogate"),
        .text(#""\uD800\uD800""#, .loneSurrogate, at: 1, "two high surrogates"),
        .text(#""a\uD83Dx""#, .loneSurrogate, at: 2, "high surrogate then a plain byte"),
        .text(#""\uD83D\n""#, .loneSurrogate, at: 1, "high surrogate then another escape"),
        .text("\"tab\there\"", .controlCharacter, at: 4, "raw tab"),
        .text("\"\n\"", .controlCharacter, at: 1, "raw newline"),
        .text("\"\u{0}\"", .controlCharacter, at: 1, "raw NUL"),
        .text("\"\u{1F}\"", .controlCharacter, at: 1),
        .text("\"\\n\u{1}\"", .controlCharacter, at: 3, "control character after an escape"),
        .text("{\"a\u{9}\":1}", .controlCharacter, at: 3, "control character in a key"),
    ]

    static let utf8: [MalformedCase] = [
        .quoted([0xC0, 0x80], .invalidUTF8, at: 1, "overlong NUL"),
        .quoted([0xC1, 0xBF], .invalidUTF8, at: 1, "overlong two-byte"),
        .quoted([0xE0, 0x80, 0x80], .invalidUTF8, at: 1, "overlong three-byte NUL"),
        .quoted([0xE0, 0x9F, 0xBF], .invalidUTF8, at: 1, "overlong U+07FF"),
        .quoted([0xF0, 0x80, 0x80, 0x80], .invalidUTF8, at: 1, "overlong four-byte"),
        .quoted([0xF0, 0x8F, 0xBF, 0xBF], .invalidUTF8, at: 1, "overlong U+FFFF"),
        .quoted([0xED, 0xA0, 0x80], .invalidUTF8, at: 1, "encoded surrogate U+D800"),
        .quoted([0xED, 0xBF, 0xBF], .invalidUTF8, at: 1, "encoded surrogate U+DFFF"),
        .quoted([0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80], .invalidUTF8, at: 1, "CESU-8 surrogate pair"),
        .quoted([0xF4, 0x90, 0x80, 0x80], .invalidUTF8, at: 1, "U+110000"),
        .quoted([0xF5, 0x80, 0x80, 0x80], .invalidUTF8, at: 1, "lead byte F5"),
        .quoted([0xFF], .invalidUTF8, at: 1, "byte FF"),
        .quoted([0xFE], .invalidUTF8, at: 1, "byte FE"),
        .quoted([0x80], .invalidUTF8, at: 1, "lone continuation byte"),
        .quoted([0x61, 0xBF], .invalidUTF8, at: 2, "continuation byte after ASCII"),
        .quoted([0xC3], .invalidUTF8, at: 1, "two-byte sequence cut by the quote"),
        .quoted([0xE2, 0x82], .invalidUTF8, at: 1, "three-byte sequence cut by the quote"),
        .quoted([0xF0, 0x9F, 0x98], .invalidUTF8, at: 1, "four-byte sequence cut by the quote"),
        .quoted([0x61, 0xC3, 0x28], .invalidUTF8, at: 2, "ASCII where a continuation byte belongs"),
        .quoted([0x5C, 0x6E, 0xC0, 0xAF], .invalidUTF8, at: 3, "after an escape (slow path)"),
        .bytes([0x22, 0xE2, 0x82], .unexpectedEnd, at: 3, "input ends inside a sequence"),
        .bytes(Array(#"{""#.utf8) + [0xFE] + Array(#"":1}"#.utf8), .invalidUTF8, at: 2, "in a key"),
        .bytes([0xC3, 0xA9], .unexpectedByte, at: 0, "valid UTF-8 outside a string"),
    ]

    static let duplicates: [MalformedCase] = [
        .text(#"{"a":1,"a":2}"#, .duplicateKey, at: 7),
        .text(#"{"a":1,"a":1}"#, .duplicateKey, at: 7, "same value too"),
        .text(#"{"a":1,"b":{"c":1,"c":1}}"#, .duplicateKey, at: 18, "nested"),
        .text(#"{"a":1,"\u0061":2}"#, .duplicateKey, at: 7, "same key once escaped"),
        .text(#"{"":1,"":2}"#, .duplicateKey, at: 6, "empty keys"),
    ]

    static let depth: [MalformedCase] = [
        .text(String(repeating: "[", count: 65) + String(repeating: "]", count: 65), .tooDeep, at: 64, "65 arrays"),
        .text(String(repeating: #"{"a":"#, count: 65) + "1" + String(repeating: "}", count: 65), .tooDeep, at: 320),
        .text(String(repeating: "[", count: 100_000), .tooDeep, at: 64, "100k brackets"),
        .text("[[[1]]]", .tooDeep, at: 2, "limit 2", limits: JSONLimits(maxDepth: 2)),
        .text("[{}]", .tooDeep, at: 1, "limit 1", limits: JSONLimits(maxDepth: 1)),
        .text("[]", .tooDeep, at: 0, "limit 0", limits: JSONLimits(maxDepth: 0)),
    ]

    static let sizes: [MalformedCase] = [
        .text(#""abcde""#, .stringTooLong, at: 0, "5 bytes, limit 4", limits: JSONLimits(maxStringBytes: 4)),
        .text(#"["a","abcde"]"#, .stringTooLong, at: 5, "second element", limits: JSONLimits(maxStringBytes: 4)),
        .text(#"{"abcde":1}"#, .stringTooLong, at: 1, "key", limits: JSONLimits(maxStringBytes: 4)),
        .text(
            #""\u00e9\u00e9\u00e9""#, .stringTooLong, at: 0, "escapes count unescaped",
            limits: JSONLimits(maxStringBytes: 5)),
        .text(#""ab😀""#, .stringTooLong, at: 0, "bytes, not characters", limits: JSONLimits(maxStringBytes: 5)),
        .text(#""a\nbcde""#, .stringTooLong, at: 0, "slow path", limits: JSONLimits(maxStringBytes: 4)),
    ]

    @Test(arguments: structure + numbers + strings + utf8 + duplicates + depth + sizes)
    func rejects(_ testCase: MalformedCase) {
        #expect(throws: JSONError.self) { try JSON.parse(testCase.bytes, limits: testCase.limits) }
        do {
            let value = try JSON.parse(testCase.bytes, limits: testCase.limits)
            Issue.record("parsed as \(value.serialized())")
        } catch {
            #expect(error.kind == testCase.kind)
            #expect(error.offset == testCase.offset, "\(error)")
            #expect(error.description.hasPrefix("invalid JSON at byte \(testCase.offset): "))
        }
    }

    @Test func tableIsLargeEnough() {
        let all = Self.structure + Self.numbers + Self.strings + Self.utf8 + Self.duplicates + Self.depth + Self.sizes
        #expect(all.count >= 60)
        #expect(Set(all.map(\.kind)) == Set(JSONError.Kind.allCases), "every category has a case")
    }

    @Test(arguments: [
        (#"{"a":1 "b":2}"#, #"invalid JSON at byte 7: expected ',' or '}' after an object member, found '"'"#),
        ("[1,]", "invalid JSON at byte 3: a trailing comma before ']' is not allowed"),
        ("[1", "invalid JSON at byte 2: unexpected end of input: expected ',' or ']' after an array element"),
        ("1e400", "invalid JSON at byte 0: number out of range: 1e400 does not fit a 64-bit float"),
        ("01", "invalid JSON at byte 0: leading zeros are not allowed in numbers"),
        (#"{"k":1,"k":2}"#, #"invalid JSON at byte 7: duplicate object key "k""#),
        (#""\uDE00""#, #"invalid JSON at byte 1: the UTF-16 surrogate \uDE00 has no high surrogate before it"#),
        ("\"a\u{1}\"", "invalid JSON at byte 2: control character 0x01 must be escaped in a string"),
        ("[] x", "invalid JSON at byte 3: unexpected 'x' after the JSON value"),
    ])
    func messages(_ input: String, _ expected: String) {
        do {
            _ = try JSON.parse(input)
            Issue.record("parsed")
        } catch {
            #expect(error.description == expected)
        }
    }

    @Test(arguments: [
        ([0xED, 0xA0, 0x80] as [UInt8], "invalid UTF-8: encoded UTF-16 surrogate in the sequence starting with 0xED"),
        ([0xE0, 0x80, 0x80], "invalid UTF-8: overlong encoding in the sequence starting with 0xE0"),
        ([0xF4, 0x90, 0x80, 0x80], "invalid UTF-8: code point above U+10FFFF in the sequence starting with 0xF4"),
        ([0xC0, 0x80], "invalid UTF-8: overlong encoding (lead byte 0xC0)"),
    ])
    func utf8Messages(_ content: [UInt8], _ expected: String) {
        #expect(throws: JSONError(.invalidUTF8, at: 1, expected)) { try JSON.parse([0x22] + content + [0x22]) }
    }

    /// Where an error is, as a person editing the text counts: lines from 1, columns in characters.
    @Test(arguments: [
        ("[1,]", 1, 4),
        ("{\n  \"k\": 1,\n  \"k\": 2\n}", 3, 3),
        ("{\"é\": 1, \"ü\": [1,]}", 1, 18),
        ("[\n\n", 3, 1),
    ])
    func positions(_ input: String, line: Int, column: Int) throws {
        let error = try #require(throws: JSONError.self) { try JSON.parse(input) }
        #expect(error.position(in: Array(input.utf8)) == (line, column))
    }
}
