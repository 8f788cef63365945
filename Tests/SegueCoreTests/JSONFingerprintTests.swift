import SegueCore
import Testing

/// `JSON.fingerprint`: equal for every spelling of one value, different for different values, and
/// fixed across builds (it is stored with each command's reply).
@Suite struct JSONFingerprintTests {
    static let sameValue: [(String, String)] = [
        (#"{"a":1,"b":2}"#, #"{"b":2,"a":1}"#),
        (#"{"a":1,"b":2}"#, #"{ "a" : 1 ,  "b" : 2 }"#),
        (#"{"n":1}"#, #"{"n":1.0}"#),
        (#"{"n":-0.0}"#, #"{"n":0}"#),
        (#"{"n":1e3}"#, #"{"n":1000}"#),
        (#"{"o":{"y":[1,{"q":true,"p":null}],"x":"s"}}"#, #"{"o":{"x":"s","y":[1,{"p":null,"q":true}]}}"#),
        (#"{"s":"é"}"#, #"{"s":"\u00e9"}"#),
    ]

    static let differentValues: [(String, String)] = [
        (#"{"a":1}"#, #"{"a":2}"#),
        (#"{"a":1}"#, #"{"a":"1"}"#),
        (#"{"a":1}"#, #"{"b":1}"#),
        (#"{"a":1}"#, #"{"a":1,"b":null}"#),
        (#"{"a":[1,2]}"#, #"{"a":[2,1]}"#),
        (#"{"a":[1,2]}"#, #"{"a":[[1,2]]}"#),
        (#"{"a":true}"#, #"{"a":false}"#),
        (#"{"a":null}"#, #"{"a":false}"#),
        (#"{"a":0.5}"#, #"{"a":0.25}"#),
        (#"{"a":""}"#, #"{"a":[]}"#),
        (#"{"a":{}}"#, #"{"a":[]}"#),
        // Length-prefixed strings: moving bytes between a key and its value changes the fingerprint.
        (#"{"ab":"c"}"#, #"{"a":"bc"}"#),
        (#"{"s":"é"}"#, #"{"s":"e\u0301"}"#),
    ]

    @Test(arguments: sameValue)
    func everySpellingOfAValueHasOneFingerprint(_ lhs: String, _ rhs: String) throws {
        #expect(try JSON.parse(lhs).fingerprint == JSON.parse(rhs).fingerprint)
    }

    @Test(arguments: differentValues)
    func differentValuesHaveDifferentFingerprints(_ lhs: String, _ rhs: String) throws {
        #expect(try JSON.parse(lhs).fingerprint != JSON.parse(rhs).fingerprint)
    }

    /// Pinned values, computed from the encoding in `JSON+Fingerprint.swift` by an independent Python
    /// implementation: a change to the algorithm would make every stored fingerprint disagree with
    /// retries after an upgrade, so it must fail here first.
    @Test(arguments: [
        (#"{"b":[1,2.5,"x"],"a":{"z":null,"y":true},"é":-3}"#, UInt64(11_064_175_137_476_608_198)),
        (#"{"cmd":"push","navigator":"main","screen":"Detail","animated":false}"#, UInt64(5_879_655_988_506_903_797)),
    ])
    func theFingerprintIsFixedAcrossBuilds(_ text: String, _ expected: UInt64) throws {
        #expect(try JSON.parse(text).fingerprint == expected)
    }
}
