import SegueCore

/// The error type of the wire layer: a wire error code and a sentence for the client.
///
/// Codes are those of docs/protocol.md, "Error codes", one to one (`ErrorCode`); decoding failures are `bad_request`,
/// `unknown_command`, `invalid_argument` or `too_large`.
public struct WireError: Error, Equatable, Sendable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String
    /// Extra integer members for the reply's `error` object (e.g. `revision` on `conflict`).
    public var details: [String: Int64]

    public init(_ code: ErrorCode, _ message: String, details: [String: Int64] = [:]) {
        self.code = code
        self.message = message
        self.details = details
    }

    public init(_ error: CoreError) {
        self.init(error.code, error.message, details: error.details)
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
