import SegueCore
import SegueProtocol
import Testing

/// The decoder's request fingerprint: what a retry under the same `id` must repeat.
@Suite struct RequestFingerprintTests {
    static func fingerprint(_ text: String) throws -> UInt64? {
        try RequestDecoder().decode(Array(text.utf8)).get().fingerprint
    }

    static let base = #"{"cmd":"push","id":"k","navigator":"r","screen":"A"}"#

    @Test(arguments: [
        (#"{"id":"k","screen":"A","navigator":"r","cmd":"push"}"#, "members reordered"),
        (#"{"cmd":"push","id":"other","navigator":"r","screen":"A"}"#, "the id itself is not part of it"),
        (#"{"cmd":"push","id":7,"navigator":"r","screen":"A"}"#, "nor is an integer id"),
        (#"{"cmd":"push","id":"k","navigator":"r","screen":"A","expect":null,"owner":null}"#, "null is absent"),
    ])
    func theSameRequestHasTheSameFingerprint(_ text: String, _ why: String) throws {
        #expect(try Self.fingerprint(text) == Self.fingerprint(Self.base), "\(why)")
    }

    @Test(arguments: [
        (#"{"cmd":"push","id":"k","navigator":"r","screen":"B"}"#, "another screen"),
        (#"{"cmd":"push","id":"k","navigator":"q","screen":"A"}"#, "another navigator"),
        (#"{"cmd":"present","id":"k","navigator":"r","screen":"A"}"#, "another command"),
        (#"{"cmd":"push","id":"k","navigator":"r","screen":"A","expect":3}"#, "an expected revision"),
        (#"{"cmd":"push","id":"k","navigator":"r","screen":"A","owner":"me"}"#, "an owner"),
        (#"{"cmd":"push","id":"k","navigator":"r","screen":"A","animated":false}"#, "an argument"),
    ])
    func aDifferentRequestHasAnotherFingerprint(_ text: String, _ why: String) throws {
        #expect(try Self.fingerprint(text) != Self.fingerprint(Self.base), "\(why)")
    }

    /// Only what can be retried under an id has one: navigation commands that carry an id.
    @Test(arguments: [
        #"{"cmd":"push","navigator":"r","screen":"A"}"#,
        #"{"cmd":"ping","id":"k"}"#,
        #"{"cmd":"state","id":"k","navigator":"r"}"#,
    ])
    func readsAndCommandsWithoutAnIdHaveNone(_ text: String) throws {
        #expect(try Self.fingerprint(text) == nil)
    }
}
