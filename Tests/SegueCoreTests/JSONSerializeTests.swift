import SegueCore
import Testing

@Suite struct JSONSerializeTests {
    @Test(
        arguments: [
            (JSON.null, "null"),
            (true, "true"),
            (false, "false"),
            (0, "0"),
            (-7, "-7"),
            (.int(Int64.max), "9223372036854775807"),
            (.int(Int64.min), "-9223372036854775808"),
            (.double(1.0), "1.0"),
            (.double(-0.0), "-0.0"),
            (.double(0.1), "0.1"),
            (.double(1e-5), "1e-05"),
            (.double(1e20), "1e+20"),
            (.double(123.456), "123.456"),
            (.double(.greatestFiniteMagnitude), "1.7976931348623157e+308"),
            (.double(.leastNonzeroMagnitude), "5e-324"),
            (.double(.infinity), "null"),
            (.double(-.infinity), "null"),
            (.double(.nan), "null"),
            ([], "[]"),
            ([:], "{}"),
            ([1, [2, [3]], [:]], "[1,[2,[3]],{}]"),
            (["b": 1, "a": [nil, true], "c": ["d": "e"]], #"{"b":1,"a":[null,true],"c":{"d":"e"}}"#),
            ([.double(.nan), .double(2)], "[null,2.0]"),
        ] as [(JSON, String)])
    func writesCompactText(_ value: JSON, _ expected: String) {
        #expect(value.serialized() == expected)
        #expect(value.serializedBytes() == Array(expected.utf8))
    }

    @Test(arguments: [
        ("plain", #""plain""#),
        ("", #""""#),
        ("quote\"back\\slash/", #""quote\"back\\slash/""#),
        ("\u{8}\u{C}\n\r\t", #""\b\f\n\r\t""#),
        ("\u{0}\u{1}\u{B}\u{1F}", #""\u0000\u0001\u000b\u001f""#),
        ("\u{7F}", "\"\u{7F}\""),
        ("é€😀", "\"é€😀\""),
        ("\u{2028}\u{2029}", "\"\u{2028}\u{2029}\""),
        ("e\u{301}", "\"e\u{301}\""),
        ("a\nb\"c", #""a\nb\"c""#),
    ])
    func escapesStringsMinimally(_ string: String, _ expected: String) {
        #expect(Array(JSON.string(string).serialized().utf8) == Array(expected.utf8))
        #expect(Array(JSON.object(["k\n": .string(string)]).serialized().utf8) == Array(#"{"k\n":\#(expected)}"#.utf8))
    }

    /// The writer skips eight bytes at a time while none needs an escape: each byte that does, and
    /// bytes right around 0x20, `"` and `\\`, at every offset of strings longer than one word, with
    /// multi-byte UTF-8 before and after, against an escape written byte by byte.
    @Test(arguments: [0x00, 0x01, 0x08, 0x0A, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7F] as [UInt8])
    func escapesEveryByteAtEveryOffset(_ special: UInt8) {
        for length in [8, 9, 15, 16, 17, 24, 33] {
            for offset in 0..<length {
                var scalars = Array(repeating: Unicode.Scalar(UInt8(ascii: "a")), count: length)
                scalars[offset] = Unicode.Scalar(special)
                if offset > 2 { scalars[offset - 2] = "é" }
                if offset + 3 < length { scalars[offset + 3] = "😀" }
                var string = ""
                string.unicodeScalars.append(contentsOf: scalars)
                #expect(JSON.string(string).serializedBytes() == Self.escapedByteByByte(string), "\(length) \(offset)")
            }
        }
    }

    private static func escapedByteByByte(_ string: String) -> [UInt8] {
        var out: [UInt8] = [0x22]
        for byte in string.utf8 {
            switch byte {
            case 0x22: out += Array(#"\""#.utf8)
            case 0x5C: out += Array(#"\\"#.utf8)
            case 0x08: out += Array(#"\b"#.utf8)
            case 0x0C: out += Array(#"\f"#.utf8)
            case 0x0A: out += Array(#"\n"#.utf8)
            case 0x0D: out += Array(#"\r"#.utf8)
            case 0x09: out += Array(#"\t"#.utf8)
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out += Array(#"\u00"#.utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: out.append(byte)
            }
        }
        out.append(0x22)
        return out
    }

    /// Bodies start in a stack buffer and move to the heap past 512 bytes: lengths on both sides of
    /// the move, and several moves, keep every byte.
    @Test(arguments: [0, 1, 500, 509, 510, 511, 512, 513, 1023, 1024, 1025, 5000])
    func writesBodiesOfEveryLength(_ length: Int) {
        let text = String((0..<length).map { Character(Unicode.Scalar(UInt8(0x61 + $0 % 26))) })
        #expect(JSON.string(text).serializedBytes() == [0x22] + Array(text.utf8) + [0x22])
        let numbers = JSON.array((0..<length).map { JSON.int($0) })
        let expected = "[" + (0..<length).map(String.init).joined(separator: ",") + "]"
        #expect(numbers.serialized() == expected)
    }

    @Test func appendsToAnExistingBuffer() {
        var buffer = Array("prefix:".utf8)
        JSON.object(["a": 1]).serialize(into: &buffer)
        JSON.array([2]).serialize(into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == #"prefix:{"a":1}[2]"#)
    }

    @Test func writesMembersInInsertionOrder() {
        var object = JSONObject()
        object["zeta"] = 1
        object["alpha"] = 2
        object["mid"] = 3
        object["alpha"] = 4
        #expect(JSON.object(object).serialized() == #"{"zeta":1,"alpha":4,"mid":3}"#)
        object["zeta"] = nil
        object["zeta"] = 5
        #expect(JSON.object(object).serialized() == #"{"alpha":4,"mid":3,"zeta":5}"#)
    }

    @Test func prettyPrintsWithTwoSpaces() {
        let value: JSON = ["name": "Detail", "params": ["ids": [1, 2], "empty": [], "none": [:]], "ok": true]
        let expected = """
            {
              "name": "Detail",
              "params": {
                "ids": [
                  1,
                  2
                ],
                "empty": [],
                "none": {}
              },
              "ok": true
            }
            """
        #expect(value.prettyPrinted() == expected)
        #expect(JSON.int(3).prettyPrinted() == "3")
        #expect(JSON.array([]).prettyPrinted() == "[]")
    }
}
