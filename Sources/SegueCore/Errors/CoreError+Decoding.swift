/// The one rule for the code of a bad value in a request (docs/protocol.md, "Which code a bad value
/// gets"), the same for envelope members, command arguments, screens and, at any depth, animators,
/// curves, springs, keyframes and rules:
///
/// - `bad_request`: the request does not have the shape the protocol describes: a value of the wrong
///   JSON type, a member missing, an unknown member, members that do not go together. The client's
///   code builds requests wrongly; no user input could have made it right.
/// - `invalid_argument`: the shape is right but the value is not allowed: out of range, not one of the
///   listed names, breaking the name rule, too many or too few elements.
///
/// Every message names the JSON path of the value, says what was expected and shows what was got,
/// because `segue` and other clients show it to the person who typed the value.
extension CoreError {
    /// A value of the wrong JSON type at `path`: `animator.curve.bezier[0] must be a number; got "a".`
    package static func wrongType(_ path: String, expected: String, got value: JSON) -> CoreError {
        CoreError(.badRequest, path: path, "must be \(expected)", "; got \(value.messageText).")
    }

    /// A required member that is absent (or null): `percent is required: a number in [0, 1].`
    package static func missing(_ path: String, _ what: String) -> CoreError {
        CoreError(.badRequest, path: path, "is required: \(what)", ".")
    }

    /// Any other shape error (an unknown member, members that do not go together).
    package static func malformed(_ message: String) -> CoreError { CoreError(.badRequest, message) }

    /// A value of the right type that is not allowed: `animator.style must be one of slide, ...; got "spin".`
    package static func notAllowed(_ path: String, expected: String, got value: JSON) -> CoreError {
        CoreError(.invalidArgument, path: path, "must be \(expected)", "; got \(value.messageText).")
    }

    /// A number of the right type outside its range: `animator.curve.bezier[0] must be in [0, 1]; got 1.5.`
    package static func outOfRange(_ path: String, _ range: ClosedRange<Double>, openBelow: Bool = false, got: Double)
        -> CoreError
    {
        let low = openBelow ? "(" : "["
        return CoreError(
            .invalidArgument, path: path,
            "must be in \(low)\(JSON.messageText(range.lowerBound)), \(JSON.messageText(range.upperBound))]",
            "; got \(JSON.messageText(got)).")
    }

    /// "`path` `requirement``rest`", with the path and the requirement kept apart (`value`).
    private init(_ code: ErrorCode, path: String, _ requirement: String, _ rest: String) {
        self.init(code, "\(path) \(requirement)\(rest)")
        value = (path, requirement)
    }

    /// Any other value that is not allowed, for messages that need their own words.
    package static func invalid(_ message: String) -> CoreError { CoreError(.invalidArgument, message) }
}
