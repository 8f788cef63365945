import SeededRandom
import SegueCore
import Testing

@testable import SegueProtocol

/// The decoder's flat path (`RequestDecoder.flatRequest`) against the tree it skips: every request it
/// takes decodes to the same `Request` through the tree, and everything else is left to the tree.
@Suite struct FlatRequestTests {
    static let decoder = RequestDecoder()

    /// `fast`: whether the flat path takes the request.
    @Test(arguments: [
        (#"{"cmd":"push","navigator":"cg","screen":"Detail","animated":false}"#, true),
        (#"{"cmd":"pop","navigator":"cg","animated":false}"#, true),
        (#"{"cmd":"push","navigator":"cg","screen":"Detail"}"#, true),
        (
            #"{"cmd":"present","navigator":"n.1-x_y","screen":"S","animated":true,"id":"a b","expect":3,"owner":"o"}"#,
            true
        ),
        (#"{"cmd":"dismiss","navigator":"n","id":12}"#, true),
        (#"{"cmd":"popToRoot","navigator":"n","expect":0,"id":"0"}"#, true),
        (" \t{ \"cmd\" : \"push\" ,\n\"navigator\":\"n\",\r\"screen\":\"A\" } \n", true),
        (#"{"id":"k","screen":"A","navigator":"r","cmd":"push"}"#, true),
        (#"{"cmd":"push","navigator":"n","screen":"A","expect":123456789012345678}"#, true),
        (#"{"cmd":"push","navigator":"n","screen":"A","expect":null}"#, false),
        (#"{"cmd":"push","navigator":"n","screen":"A\u0042"}"#, false),
        (#"{"cmd":"push","navigator":"n","screen":"Ä"}"#, false),
        (#"{"cmd":"push","navigator":"n","screen":"A","expect":1.0}"#, false),
        (#"{"cmd":"push","navigator":"n","screen":"A","expect":1e2}"#, false),
        (#"{"cmd":"push","navigator":"n","screen":"A","expect":-1}"#, false),
        (#"{"cmd":"push","navigator":"n","screen":"A","id":-0}"#, false),
        (#"{"cmd":"push","navigator":"n","screen":"A","expect":01}"#, false),
        (#"{"cmd":"push","navigator":"n","screen":"A","expect":1234567890123456789}"#, false),
        (#"{"cmd":"push","navigator":"n","screen":"A","screen":"B"}"#, false),
        (#"{"cmd":"push","navigator":"n","screen":"A","extra":1}"#, false),
        (#"{"cmd":"push","navigator":"n","screen":"A","animator":{"style":"fade"}}"#, false),
        (#"{"cmd":"push","navigator":"n","screen":{"name":"A"}}"#, false),
        (#"{"cmd":"push","screen":"A"}"#, false),
        (#"{"cmd":"push","navigator":"n!","screen":"A"}"#, false),
        (#"{"cmd":"push","navigator":"n","screen":"A!"}"#, false),
        (#"{"cmd":"pop","navigator":"n","screen":"A"}"#, false),
        (#"{"cmd":"push","navigator":"n"}"#, false),
        (#"{"cmd":"push","navigator":"n","screen":"A","id":""}"#, false),
        (#"{"cmd":"push","navigator":"n","screen":"A","owner":""}"#, false),
        (#"{"cmd":"push","navigator":"n","screen":"A",}"#, false),
        (#"{"cmd":"push","navigator":"n","screen":"A"} x"#, false),
        (#"{"cmd":"push","navigator":"n","screen":"A"}{}"#, false),
        (#"{"cmd":"push","navigator":"n","screen":"A","animated":truex}"#, false),
        (#"{"cmd":"push","navigator":"n","screen":"A","animated":1}"#, false),
        (#"{"cmd":"popTo","navigator":"n","screen":"s1"}"#, false),
        (#"{"cmd":"ping"}"#, false),
        (#"{"cmd":"push","navigator":"n","screen":"A""#, false),
        (#"[{"cmd":"push","navigator":"n","screen":"A"}]"#, false),
        ("", false),
    ])
    func takesOnlyWhatTheTreeReadsTheSame(_ text: String, _ fast: Bool) {
        let bytes = Array(text.utf8)
        let flat = Self.decoder.flatRequest(bytes)
        let tree = Self.decoder.decodeThroughTree(bytes)
        #expect((flat != nil) == fast)
        if let flat { #expect(tree == .success(flat)) }
        #expect(Self.decoder.decode(bytes) == tree)
    }

    /// The decoder's limits bound the flat path too: an id or owner past `maxIDBytes`, a string or a
    /// key past `maxStringBytes`.
    @Test(arguments: [
        (#"{"cmd":"pop","navigator":"n","id":"abcd"}"#, true),
        (#"{"cmd":"pop","navigator":"n","id":"abcde"}"#, false),
        (#"{"cmd":"pop","navigator":"n","owner":"abcde"}"#, false),
        (#"{"cmd":"pop","navigator":"nnnnnnnnn"}"#, true),
        (#"{"cmd":"pop","navigator":"nnnnnnnnnn"}"#, false),
    ])
    func keepsTheDecodersLimits(_ text: String, _ fast: Bool) {
        var limits = RequestDecoder.Limits()
        limits.maxIDBytes = 4
        // "navigator", the longest key, is 9 bytes: keys count against the limit too.
        limits.maxStringBytes = 9
        let decoder = RequestDecoder(limits: limits)
        let bytes = Array(text.utf8)
        let flat = decoder.flatRequest(bytes)
        #expect((flat != nil) == fast)
        if let flat { #expect(decoder.decodeThroughTree(bytes) == .success(flat)) }
        #expect(decoder.decode(bytes) == decoder.decodeThroughTree(bytes))
    }

    /// Random objects of the members the flat path knows and a few it does not, with values of every
    /// kind it refuses, in any order and spacing: `decode` always equals the tree's answer, and the
    /// flat path takes a good share of them.
    @Test func randomRequestsDecodeAsThroughTheTree() {
        let keys = ["cmd", "navigator", "screen", "animated", "id", "expect", "owner", "animator", "x"]
        let values: [String: [String]] = [
            "cmd": [
                #""push""#, #""pop""#, #""present""#, #""dismiss""#, #""popToRoot""#, #""popTo""#, #""ping""#, "1",
            ],
            "navigator": [#""cg""#, #""n.1""#, #""bad name""#, #""""#, "null", #""\u0063g""#, "7"],
            "screen": [#""Detail""#, #""s1""#, #""Dé""#, #"{"name":"A"}"#, "null", "true"],
            "animated": ["true", "false", "null", "0", #""false""#, "tru"],
            "id": [#""k""#, "7", "0", "-3", "1.5", "1e3", #""""#, "null", "99999999999999999999", "012"],
            "expect": ["0", "5", "-1", "2.0", "null", #""3""#, "123456789012345678", "1234567890123456789"],
            "owner": [#""me""#, #""""#, "null", "[]"],
            "animator": [#"{"style":"fade"}"#, "null"],
            "x": ["1"],
        ]
        let spaces = ["", " ", "\n", "\t ", "\r\n"]
        var g = SplitMix64(seed: 0xF1A7)
        var taken = 0
        for _ in 0..<20_000 {
            // Members the flat path refuses are rare, and each value is a valid one half the time, so
            // both paths see many requests.
            var chosen = keys.filter { key in g.next() % (key == "animator" || key == "x" ? 8 : 2) == 0 }
            if g.next() % 4 != 0, !chosen.contains("cmd") { chosen.insert("cmd", at: 0) }
            if g.next() % 8 == 0, let first = chosen.first { chosen.append(first) }
            chosen.shuffle(using: &g)
            func space() -> String { spaces[Int(g.next() % UInt64(spaces.count))] }
            let members = chosen.map { key -> String in
                let pool = values[key]!
                let value = g.next() % 2 == 0 ? pool[0] : pool[Int(g.next() % UInt64(pool.count))]
                return space() + "\"\(key)\"" + space() + ":" + space() + value
            }
            let text = space() + "{" + members.joined(separator: ",") + space() + "}" + space()
            let bytes = Array(text.utf8)
            let tree = Self.decoder.decodeThroughTree(bytes)
            #expect(Self.decoder.decode(bytes) == tree, "\(text)")
            if let flat = Self.decoder.flatRequest(bytes) {
                taken += 1
                #expect(tree == .success(flat), "\(text)")
            }
        }
        #expect(taken > 500)
    }
}
