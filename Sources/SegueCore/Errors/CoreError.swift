/// A rejection decided by the pure core: a wire error code plus a sentence for a human.
///
/// Messages name the navigator and transition involved and say what the client can do next, because
/// they are shown verbatim by `segue` and by third-party clients.
public struct CoreError: Error, Equatable, Sendable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String
    /// Extra machine-readable fields for the reply (e.g. the current `revision` on `conflict`).
    public var details: [String: Int64]

    public init(_ code: ErrorCode, _ message: String, details: [String: Int64] = [:]) {
        self.code = code
        self.message = message
        self.details = details
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
