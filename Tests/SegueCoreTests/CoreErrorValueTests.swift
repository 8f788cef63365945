import Testing

@testable import SegueCore

/// A decoding error keeps the path of the value it refuses and what that value must be, apart from
/// its sentence, for tools that map it back to their own options; the sentence is unchanged.
@Suite struct CoreErrorValueTests {
    static let cases: [(error: CoreError, message: String, path: String?, requirement: String?)] = [
        (
            .outOfRange("endRule.threshold", 0...1, got: 2), "endRule.threshold must be in [0, 1]; got 2.",
            "endRule.threshold", "must be in [0, 1]"
        ),
        (
            .outOfRange("duration", 0...60, openBelow: true, got: 0), "duration must be in (0, 60]; got 0.", "duration",
            "must be in (0, 60]"
        ),
        (
            .wrongType("busy", expected: "a string", got: 1), "busy must be a string; got 1.", "busy",
            "must be a string"
        ),
        (
            .notAllowed("busy", expected: #""reject" or "queue""#, got: "maybe"),
            #"busy must be "reject" or "queue"; got "maybe"."#, "busy", #"must be "reject" or "queue""#
        ),
        (.missing("root", "a screen"), "root is required: a screen.", "root", "is required: a screen"),
        (.malformed("Unknown field \"x\" in endRule."), "Unknown field \"x\" in endRule.", nil, nil),
        (.invalid("Too many rules."), "Too many rules.", nil, nil),
    ]

    @Test(arguments: cases)
    func theValueIsKeptApartFromTheSentence(
        error: CoreError, message: String, path: String?, requirement: String?
    ) {
        #expect(error.message == message)
        #expect(error.value?.path == path)
        #expect(error.value?.requirement == requirement)
    }

    /// Two errors with the same code and sentence are equal whether or not one keeps its value.
    @Test func equalityIsTheCodeAndTheSentence() {
        #expect(CoreError.outOfRange("a", 0...1, got: 2) == CoreError(.invalidArgument, "a must be in [0, 1]; got 2."))
    }

    /// An integer out of range says the range as the requirement (`queueLimit` of `create`).
    @Test func anIntegerOutOfRangeKeepsItsBounds() throws {
        #expect(throws: CoreError.self) { try JSON.int(0).integer(at: "queueLimit", in: 1...1024) }
        do {
            _ = try JSON.int(0).integer(at: "queueLimit", in: 1...1024)
        } catch {
            #expect(error.message == "queueLimit must be in [1, 1024]; got 0.")
            #expect(error.value?.path == "queueLimit" && error.value?.requirement == "must be in [1, 1024]")
        }
    }
}
