/// The stable error codes of the wire protocol (docs/protocol.md, "Error codes").
///
/// Every module's error type maps onto one of these, one to one, so a client can switch on the code
/// it reads from a reply without parsing messages. The raw values are the wire spelling and must
/// never change.
public enum ErrorCode: String, Sendable, CaseIterable, Codable {
    case badRequest = "bad_request"
    case unknownCommand = "unknown_command"
    case invalidArgument = "invalid_argument"
    case unknownNavigator = "unknown_navigator"
    case navigatorExists = "navigator_exists"
    case navigatorClosed = "navigator_closed"
    case busy
    case noTransition = "no_transition"
    case notInteractive = "not_interactive"
    case notOwner = "not_owner"
    case cannotPopRoot = "cannot_pop_root"
    case screenNotFound = "screen_not_found"
    case conflict
    case tooLarge = "too_large"
    case unauthorized
    case forbidden
    case unavailable
    /// The navigator is in a shard another daemon on the same log leads; the error names its
    /// command endpoint (`leader`), where the client sends the command again.
    case moved
    case `internal`
}
