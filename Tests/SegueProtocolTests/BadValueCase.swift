import SegueCore
import SegueProtocol
import Testing

/// One request with one bad value, as a client sends it, the code it must get and a fragment of the
/// message: the value's JSON path, what was expected and what was got.
///
/// The rule under test (docs/protocol.md, "Which code a bad value gets"): a value of the wrong JSON type,
/// a missing or unknown member is `bad_request`; a value of the right type out of range or not allowed
/// is `invalid_argument`, at any depth.
struct BadValueCase: Sendable, CustomTestStringConvertible {
    /// The member the row is about, with indices as `[i]` (`animator.curve.bezier[i]`), to check that
    /// every member with a range has rows of both kinds.
    var member: String
    var request: String
    var code: ErrorCode
    var fragment: String

    init(_ member: String, _ request: String, _ code: ErrorCode, _ fragment: String) {
        self.member = member
        self.request = request
        self.code = code
        self.fragment = fragment
    }

    var testDescription: String { "\(code.rawValue): \(fragment.prefix(90))" }

    /// `{"cmd": cmd, "navigator": "m", <members>}`.
    static func nav(_ cmd: String, _ members: String) -> String {
        #"{"cmd":"\#(cmd)","navigator":"m"\#(members.isEmpty ? "" : ",")\#(members)}"#
    }

    /// `create` with a valid root and `members`.
    static func create(_ members: String) -> String { nav("create", #""root":"A","# + members) }

    /// A push of screen A with `animator`.
    static func animator(_ animator: String) -> String { nav("push", #""screen":"A","animator":"# + animator) }

    /// A push whose animator has `curve`.
    static func curve(_ curve: String) -> String { animator(#"{"curve":"# + curve + "}") }

    /// A push whose animator has keyframes for the view `to`, with `tracks`.
    static func tracks(_ tracks: String) -> String { animator(#"{"keyframes":{"to":{"tracks":"# + tracks + "}}}") }

    static let all: [BadValueCase] =
        envelope + reads + create + navigation + gestures + animators + curves
        + keyframes + rules

    /// Members whose only constraint is their type, so they have no `invalid_argument` row: objects
    /// whose members have their own rows, booleans, free strings and numbers, `percent` (any number is
    /// clamped to [0, 1]), `popTo`'s screen (looked up when the command is decided), fixed-size arrays
    /// (their count is part of their type; their elements have ranges), and unknown members.
    static let typeOnly: Set<String> = [
        "animated", "retarget", "percent", "popTo screen", "root.params", "screens[i].id", "endRule", "container",
        "animator",
        "animator.fade", "animator.offset", "animator.curve.bezier", "animator.curve.spring",
        "animator.keyframes", "animator.keyframes.from", "animator.keyframes.to.tracks",
        "animator.keyframes.to.tracks.x[i]", "animators[i]", "animators[i].animator", "unknown member",
    ]
}
