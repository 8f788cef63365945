import SegueCore
import SegueWire

/// Everything a `SegueClient` call can fail with.
///
/// The daemon's refusals keep the wire `ErrorCode` (docs/protocol.md, "Error codes") so callers switch on the code,
/// never on the message; silence and socket failures are separate cases because a script treats them differently (retry
/// later, or give up) from a "no" it must not repeat.
public enum SegueClientError: Error, Equatable, CustomStringConvertible {
    /// The daemon answered `ok: false`: its code, its sentence, and any extra members of `error`
    /// (e.g. `revision` on `conflict`).
    case rejected(code: ErrorCode, message: String, details: JSONObject)
    /// No reply within the deadline, retries included.
    case timeout(command: String, waited: Duration)
    /// ZeroMQ refused: a bad endpoint, a terminated context, a closed socket.
    case transport(ZMQError)
    /// A reply (or a published message) that is not what the protocol says.
    case malformed(String)
    /// The connection to `endpoint` failed its handshake, for a reason that retrying will not change
    /// (a refused or wrong CURVE key, CURVE on one side only).
    case handshake(HandshakeFailure, endpoint: String)
    /// Nothing listens at `endpoint`: every connect was refused and none was ever made (reported within
    /// a second rather than after the whole timeout).
    case unreachable(endpoint: String)
    /// A CURVE key file that cannot be used: missing, unreadable, not a regular file, or not a key.
    /// `problem` completes the sentence that starts with the path.
    case keyFile(path: String, problem: String)

    /// The wire code of a refusal, `nil` for the client-side cases.
    public var code: ErrorCode? {
        if case .rejected(let code, _, _) = self { return code }
        return nil
    }

    public var description: String {
        switch self {
        case .rejected(let code, let message, _):
            return "\(code.rawValue): \(message)"
        case .timeout(let command, let waited):
            return
                "timeout: \(command) got no reply within \(Self.seconds(waited)) s; is segued running at this endpoint?"
        case .transport(let error):
            return "transport: \(error)"
        case .malformed(let what):
            return "malformed reply: \(what)"
        case .handshake(let failure, let endpoint):
            return "handshake: " + Self.sentence(failure, endpoint: endpoint)
        case .keyFile(let path, let problem):
            return "key file: \(path) \(problem)"
        case .unreachable(let endpoint):
            return "could not connect to \(endpoint): connection refused (is segued running there?)"
        }
    }

    static func sentence(_ failure: HandshakeFailure, endpoint: String) -> String {
        switch failure {
        case .keyRefused(let status):
            return "segued at \(endpoint) refused this client's CURVE key (ZAP status \(status)); only keys listed "
                + "in its security.curve.clients may connect."
        case .serverKeyRejected:
            return "segued at \(endpoint) hung up on the CURVE handshake: the server key given is not its public "
                + "key, or it does not use CURVE."
        case .curveRequired:
            return "segued at \(endpoint) hung up on a handshake without keys: it requires CURVE."
        }
    }

    static func seconds(_ duration: Duration) -> String {
        let (s, atto) = duration.components
        let value = Double(s) + Double(atto) / 1e18
        return value == value.rounded() ? String(Int64(value)) : String(value)
    }

    /// Reads the `error` member of an `ok: false` reply.
    static func rejection(_ reply: JSONObject) -> SegueClientError {
        guard let error = reply["error"]?.objectValue, let raw = error["code"]?.stringValue,
            let message = error["message"]?.stringValue
        else { return .malformed("an ok: false reply without error.code and error.message") }
        var details = error
        details["code"] = nil
        details["message"] = nil
        return .rejected(code: ErrorCode(rawValue: raw) ?? .internal, message: message, details: details)
    }
}
