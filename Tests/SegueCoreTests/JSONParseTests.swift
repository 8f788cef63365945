import SeededRandom
import SegueCore
import Testing

@Suite struct JSONParseTests {
    @Test(
        arguments: [
            ("null", JSON.null),
            ("true", true),
            ("false", false),
            (" \t\r\n 1 \t\r\n ", 1),
            (#""""#, ""),
            ("[]", []),
            ("{}", [:]),
            ("[ ]", []),
            ("{ }", [:]),
            ("[1,2.5,\"x\",null,true,[],{}]", [1, 2.5, "x", nil, true, [], [:]]),
            (#"{"a":{"b":[{"c":null}]}}"#, ["a": ["b": [["c": nil]]]]),
            (#" { "a" : 1 , "b" : [ 1 , 2 ] } "#, ["a": 1, "b": [1, 2]]),
            (#"{"é":1,"e":2}"#, ["é": 1, "e": 2]),
        ] as [(String, JSON)])
    func parsesValidDocuments(_ text: String, _ expected: JSON) throws {
        let value = try JSON.parse(text)
        #expect(identical(value, expected), "\(value.serialized())")
    }

    @Test func keepsMemberOrder() throws {
        let value = try JSON.parse(#"{"z":1,"a":2,"m":3}"#)
        #expect(value.objectValue?.keys == ["z", "a", "m"])
    }

    // MARK: - Numbers

    @Test(
        arguments: [
            ("0", JSON.int(0)),
            ("-1", .int(-1)),
            ("42", .int(42)),
            ("9223372036854775807", .int(Int64.max)),
            ("-9223372036854775808", .int(Int64.min)),
            ("9223372036854775808", .double(9_223_372_036_854_775_808.0)),
            ("-9223372036854775809", .double(-9_223_372_036_854_775_808.0)),
            ("123456789012345678901234567890", .double(1.2345678901234568e29)),
            ("-0", .double(-0.0)),
            ("-0.0", .double(-0.0)),
            ("0.0", .double(0.0)),
            ("1.0", .double(1.0)),
            ("1e2", .double(100)),
            ("1E2", .double(100)),
            ("1e+2", .double(100)),
            ("1e-2", .double(0.01)),
            ("0e0", .double(0)),
            ("-1.5e-3", .double(-0.0015)),
            ("0.1", .double(0.1)),
            ("1e308", .double(1e308)),
            ("1.7976931348623157e308", .double(.greatestFiniteMagnitude)),
            ("2.2250738585072014e-308", .double(.leastNormalMagnitude)),
            ("5e-324", .double(.leastNonzeroMagnitude)),
            ("4.9406564584124654e-324", .double(.leastNonzeroMagnitude)),
            ("1e-400", .double(0)),
            ("-1e-400", .double(-0.0)),
            ("1e0000000000000000000002", .double(100)),
            ("0.30000000000000004", .double(0.1 + 0.2)),
            ("9007199254740993", .int(9_007_199_254_740_993)),
            ("9007199254740993.0", .double(9_007_199_254_740_992)),
        ] as [(String, JSON)])
    func parsesNumbers(_ text: String, _ expected: JSON) throws {
        let value = try JSON.parse(text)
        #expect(identical(value, expected), "\(text) parsed as \(value.serialized())")
    }

    @Test func parsesSubnormals() throws {
        let value = try #require(try JSON.parse("1e-320").doubleValue)
        #expect(value.isSubnormal)
        #expect(value == Double("1e-320"))
        #expect(value.description == "1e-320")
    }

    /// Correct rounding at the halfway point between two doubles, where naive digit-by-digit
    /// accumulation goes wrong: 2^53 + 1 lies exactly between 2^53 and 2^53 + 2 and rounds to even.
    @Test(arguments: [
        ("9007199254740993e0", 9_007_199_254_740_992.0),
        ("9007199254740993.000000000000000000001", 9_007_199_254_740_994.0),
        ("2.4703282292062328e-324", Double.leastNonzeroMagnitude),
        ("2.4703282292062327e-324", 0.0),
    ])
    func roundsCorrectly(_ text: String, _ expected: Double) throws {
        #expect(try JSON.parse(text).doubleValue?.bitPattern == expected.bitPattern)
    }

    // MARK: - Strings

    @Test(arguments: [
        (#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{8}\u{C}\n\r\t"),
        (#""\u0000""#, "\u{0}"),
        (#""\u001f\u001F""#, "\u{1F}\u{1F}"),
        (#""\u0041\u00e9\u00E9""#, "Aéé"),
        (#""\u20ac""#, "€"),
        (#""\uFFFF""#, "\u{FFFF}"),
        (#""\uD83D\uDE00""#, "😀"),
        (#""\ud83d\ude00""#, "😀"),
        (#""\uDBFF\uDFFF""#, "\u{10FFFF}"),
        (#""\uD800\uDC00""#, "\u{10000}"),
        (#""a\u2028b\u2029c""#, "a\u{2028}b\u{2029}c"),
        (#""x\ny""#, "x\ny"),
        (#""é\n😀""#, "é\n😀"),
        ("\"\u{7F}\"", "\u{7F}"),
        ("\"é€😀\"", "é€😀"),
        ("\"\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}\u{10FFFF}\"", "\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}\u{10FFFF}"),
        ("\"e\u{301}\"", "e\u{301}"),
        ("\"\u{FEFF}\"", "\u{FEFF}"),
    ])
    func decodesStrings(_ text: String, _ expected: String) throws {
        let value = try #require(try JSON.parse(text).stringValue)
        #expect(Array(value.utf8) == Array(expected.utf8))
    }

    /// Boundary bytes of every row of the Unicode Standard's Table 3-7 of well-formed UTF-8.
    @Test(
        arguments: [
            [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0xA0, 0x80], [0xE0, 0xBF, 0xBF], [0xE1, 0x80, 0x80], [0xEC, 0xBF, 0xBF],
            [0xED, 0x80, 0x80], [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80], [0xEF, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80],
            [0xF0, 0xBF, 0xBF, 0xBF], [0xF1, 0x80, 0x80, 0x80], [0xF3, 0xBF, 0xBF, 0xBF], [0xF4, 0x80, 0x80, 0x80],
            [0xF4, 0x8F, 0xBF, 0xBF],
        ] as [[UInt8]])
    func acceptsWellFormedUTF8(_ sequence: [UInt8]) throws {
        let value = try #require(try JSON.parse([0x22] + sequence + [0x22]).stringValue)
        #expect(Array(value.utf8) == sequence)
    }

    /// Our validator against the standard library's: for random byte strings with no quote,
    /// backslash or control character, the parser accepts exactly when `String(validating:)` does.
    @Test func utf8ValidationAgreesWithStandardLibrary() {
        var rng = SplitMix64(seed: 0x5EED_0001)
        let interesting: [UInt8] = [
            0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1,
            0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
        ]
        var accepted = 0
        for _ in 0..<20_000 {
            let content = (0..<Int.random(in: 1...6, using: &rng)).map { _ in
                interesting[Int.random(in: 0..<interesting.count, using: &rng)]
            }
            let reference = String(validating: content, as: UTF8.self)
            do {
                let parsed = try JSON.parse([0x22] + content + [0x22])
                #expect(reference != nil && parsed.stringValue == reference, "accepted \(content)")
                accepted += 1
            } catch {
                #expect(reference == nil, "rejected \(content): \(error)")
                #expect(error.kind == .invalidUTF8)
            }
        }
        #expect(accepted > 200, "the sample must contain valid sequences too")
    }

    // MARK: - Limits and keys

    @Test func depthLimitIsInclusive() throws {
        let deepest = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        _ = try JSON.parse(deepest)
        _ = try JSON.parse("[[1]]", limits: JSONLimits(maxDepth: 2))
        _ = try JSON.parse("1", limits: JSONLimits(maxDepth: 0))
        let objects = String(repeating: #"{"a":"#, count: 64) + "1" + String(repeating: "}", count: 64)
        _ = try JSON.parse(objects)
    }

    @Test func stringLimitIsInclusive() throws {
        let limits = JSONLimits(maxStringBytes: 4)
        #expect(try JSON.parse(#""abcd""#, limits: limits) == "abcd")
        #expect(try JSON.parse(#""😀""#, limits: limits) == "😀")
        #expect(try JSON.parse(#""\u00e9\u00e9""#, limits: limits) == "éé")
        #expect(try JSON.parse(#"{"abcd":"abcd"}"#, limits: limits) == ["abcd": "abcd"])
        #expect(JSONLimits.default == JSONLimits(maxDepth: 64, maxStringBytes: 1_048_576))
    }

    /// Large objects find duplicates through a set rather than a scan; both paths must agree.
    @Test(arguments: [3, 15, 16, 17, 40])
    func duplicateKeysInObjectsOfAnySize(_ count: Int) throws {
        let members = (0..<count).map { #""k\#($0)":\#($0)"# }
        let unique = "{" + members.joined(separator: ",") + "}"
        #expect(try JSON.parse(unique).objectValue?.count == count)

        let prefix = "{" + members.joined(separator: ",") + ","
        let duplicated = prefix + #""k\#(count - 1)":0}"#
        #expect(throws: JSONError.self) { try JSON.parse(duplicated) }
        do {
            _ = try JSON.parse(duplicated)
        } catch {
            #expect(error.kind == .duplicateKey)
            #expect(error.offset == prefix.utf8.count)
        }
    }

    /// Keys that Swift considers equal (canonically equivalent) are duplicates, because
    /// `JSONObject`'s subscript could reach only one of them.
    @Test func canonicallyEquivalentKeysAreDuplicates() {
        #expect(throws: JSONError.self) { try JSON.parse("{\"\u{E9}\":1,\"e\u{301}\":2}") }
    }

    // MARK: - Entry points

    @Test func everyInputTypeParsesTheSame() throws {
        let text = #"{"a":[1,2.5,"é"]}"#
        let bytes = Array(text.utf8)
        let expected = try JSON.parse(text)
        #expect(identical(try JSON.parse(bytes), expected))
        #expect(identical(try JSON.parse(bytes[...]), expected))
        #expect(identical(try JSON.parse(bytes.lazy.map { $0 }), expected), "non-contiguous collection")
        let viaPointer = try bytes.withUnsafeBytes { buffer in try JSON.parse(buffer) }
        #expect(identical(viaPointer, expected))
    }

    @Test func offsetsInSlicesCountFromTheSliceStart() {
        let bytes = Array("xxxx[1,]".utf8)
        #expect(throws: JSONError(.unexpectedByte, at: 3, "a trailing comma before ']' is not allowed")) {
            try JSON.parse(bytes[4...])
        }
    }
}
