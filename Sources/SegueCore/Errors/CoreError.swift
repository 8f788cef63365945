/// A rejection decided by the pure core: a wire error code plus a sentence for a human.
///
/// Messages name the navigator and transition involved and say what the client can do next, because
/// they are shown verbatim by `segue` and by third-party clients.
public struct CoreError: Error, Equatable, Sendable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String
    /// Extra machine-readable fields for the reply (e.g. the current `revision` on `conflict`).
    public var details: [String: Int64]
    /// The one value refused, for a tool that maps it back to its own option (`segue create`): its
    /// JSON path and what it must be, as the message words them ("endRule.threshold", "must be in
    /// [0, 1]"). Set by the decoding errors of CoreError+Decoding; not part of equality, since the
    /// message already says both.
    package var value: (path: String, requirement: String)?
    /// Whether the input names something this build does not know (a member, an event type, a
    /// version): perhaps it was written by a newer build, which a reader of files says
    /// (`message(askingIfUnknown:)`). Not part of equality.
    package var unknownToThisBuild = false
    /// The seq of the recorded event the error is about, when folding one failed (`Fleet.apply`): a
    /// reader that holds events back (a replay applies a frame's events as it closes) says where
    /// that event is, not where it was reading. Not part of equality.
    package var seq: Int64?

    public init(_ code: ErrorCode, _ message: String, details: [String: Int64] = [:]) {
        self.code = code
        self.message = message
        self.details = details
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// The same error with `context` before its message ("push on navigator m: …"), its code,
    /// details and refused value kept.
    package func prefixed(_ context: String) -> CoreError {
        var error = self
        error.message = "\(context): \(message)"
        return error
    }

    /// The message, followed by `question` (`was it exported by a newer segue?`) when the error is
    /// about something this build does not know.
    package func message(askingIfUnknown question: String) -> String {
        guard unknownToThisBuild else { return message }
        return (message.hasSuffix(".") ? String(message.dropLast()) : message) + "; " + question
    }

    public static func == (a: CoreError, b: CoreError) -> Bool {
        a.code == b.code && a.message == b.message && a.details == b.details
    }
}
