import Glibc
import SegueCore
import SegueProtocol
import SegueWire

/// Everything a `SegueClient` call can fail with.
///
/// The daemon's refusals keep the wire `ErrorCode` (docs/protocol.md, "Error codes") so callers check
/// the code, never the message; silence and socket failures are other kinds because a script treats
/// them differently (retry later, or give up) from a "no" it must not repeat. A struct over a private
/// enum, so that a new kind breaks no caller's `switch`: callers compare `kind` and `code`.
public struct SegueClientError: Error, Equatable, CustomStringConvertible {
    private enum Storage: Equatable {
        case rejected(code: ErrorCode, message: String, details: JSONObject)
        case timeout(command: String, waited: Duration)
        case silentPeer(command: String, waited: Duration, endpoint: String)
        case closedOnRequest(command: String, waited: Duration, bytes: Int)
        case transport(ZMQError)
        case malformed(String)
        case handshake(HandshakeFailure, endpoint: String)
        case unreachable(endpoint: String)
        case keyFile(path: String, problem: String)
        case interrupted
    }

    private let storage: Storage

    /// The `id` of the request that failed, when the call sent one (generated when the caller gave
    /// none): send the same request with this `id` to retry it safely after a `.timeout` or
    /// `unavailable`, as the daemon applies an id once and answers a repeat with the stored reply.
    /// Not part of equality: it says which request, not what went wrong.
    public internal(set) var requestID: String?
    /// Why an `unreachable` endpoint could not be used, found when the error was made (not part of
    /// equality): its text must not change with the file system after the fact.
    private var unreachableReason: String?

    public static func == (a: SegueClientError, b: SegueClientError) -> Bool { a.storage == b.storage }

    /// What failed, as a stable name (`Kind.name` is what `segue --json` reports).
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        public let name: String
        private init(_ name: String) { self.name = name }
        /// The daemon answered `ok: false`: see `code`, `message` and `details`.
        public static let rejected = Kind("rejected")
        /// No reply within the deadline, retries included.
        public static let timeout = Kind("timeout")
        /// ZeroMQ refused: a bad endpoint, a terminated context, a closed socket.
        public static let transport = Kind("transport")
        /// A reply (or a published message) that is not what the protocol says.
        public static let malformed = Kind("malformed")
        /// The connection failed its handshake, for a reason that retrying will not change (a refused
        /// or wrong CURVE key, CURVE on one side only): see `handshakeFailure`.
        public static let handshake = Kind("handshake")
        /// Nothing listens at the endpoint: every connect was refused and none was ever made (reported
        /// within a second rather than after the whole timeout).
        public static let unreachable = Kind("unreachable")
        /// A CURVE key file that cannot be used: missing, unreadable, not a regular file, or not a key.
        public static let keyFile = Kind("key_file")
        /// The caller's `interruption` ended the wait for the reply (see `SegueClient.interruption`).
        public static let interrupted = Kind("interrupted")
        public var description: String { name }
    }

    public static func rejected(code: ErrorCode, message: String, details: JSONObject) -> Self {
        Self(storage: .rejected(code: code, message: message, details: details))
    }
    public static func timeout(command: String, waited: Duration) -> Self {
        Self(storage: .timeout(command: command, waited: waited))
    }
    /// A timeout where the daemon closed the connection after the request went out: kind `timeout`,
    /// with a message that names a request over `limits.maxMessageBytes` as the likely reason.
    public static func closedOnRequest(command: String, waited: Duration, bytes: Int) -> Self {
        Self(storage: .closedOnRequest(command: command, waited: waited, bytes: bytes))
    }
    /// A timeout where the peer took the connection and never sent ZeroMQ's greeting: kind `timeout`,
    /// with a message that says so.
    public static func silentPeer(command: String, waited: Duration, endpoint: String) -> Self {
        Self(storage: .silentPeer(command: command, waited: waited, endpoint: endpoint))
    }
    public static func transport(_ error: ZMQError) -> Self { Self(storage: .transport(error)) }
    public static func malformed(_ what: String) -> Self { Self(storage: .malformed(what)) }
    public static let interrupted = Self(storage: .interrupted)
    public static func handshake(_ failure: HandshakeFailure, endpoint: String) -> Self {
        Self(storage: .handshake(failure, endpoint: endpoint))
    }
    public static func unreachable(endpoint: String) -> Self {
        var error = Self(storage: .unreachable(endpoint: endpoint))
        error.unreachableReason = Self.unreachableReason(endpoint)
        return error
    }
    /// `problem` completes the sentence that starts with the path.
    public static func keyFile(path: String, problem: String) -> Self {
        Self(storage: .keyFile(path: path, problem: problem))
    }

    /// What a `SegueProtocol` type decodes from a reply or publication; one that does not decode is
    /// `malformed`.
    package static func decoding<Value>(_ decode: () throws(WireError) -> Value) throws(SegueClientError) -> Value {
        do { return try decode() } catch { throw .malformed(error.message) }
    }

    /// What failed: compare with `Kind`'s members (`.rejected`, `.timeout`, …).
    public var kind: Kind {
        switch storage {
        case .rejected: .rejected
        case .timeout, .silentPeer, .closedOnRequest: .timeout
        case .transport: .transport
        case .malformed: .malformed
        case .handshake: .handshake
        case .unreachable: .unreachable
        case .keyFile: .keyFile
        case .interrupted: .interrupted
        }
    }

    /// The wire code of a refusal, `nil` for the client-side kinds.
    public var code: ErrorCode? {
        if case .rejected(let code, _, _) = storage { return code }
        return nil
    }

    /// A refusal's sentence as the daemon wrote it; otherwise the description without its kind.
    public var message: String {
        if case .rejected(_, let message, _) = storage { return message }
        return sentence
    }

    /// The extra members of a refusal's `error` (e.g. `revision` on `conflict`).
    public var details: JSONObject {
        if case .rejected(_, _, let details) = storage { return details }
        return [:]
    }

    /// Why the handshake was refused, for `.handshake`.
    public var handshakeFailure: HandshakeFailure? {
        if case .handshake(let failure, _) = storage { return failure }
        return nil
    }

    /// ZeroMQ's error behind a `transport` failure.
    public var transportError: ZMQError? {
        if case .transport(let error) = storage { return error }
        return nil
    }

    /// The key file behind a `keyFile` failure, and what is wrong with it.
    public var keyFileProblem: (path: String, problem: String)? {
        if case .keyFile(let path, let problem) = storage { return (path, problem) }
        return nil
    }

    public var description: String {
        switch storage {
        case .rejected(let code, let message, _): "\(code.rawValue): \(message)"
        case .timeout, .silentPeer, .closedOnRequest: "timeout: " + sentence
        case .transport: "transport: " + sentence
        case .malformed: "malformed reply: " + sentence
        case .handshake: "handshake: " + sentence
        case .keyFile: "key file: " + sentence
        case .unreachable, .interrupted: sentence
        }
    }

    /// The least `limits.maxMessageBytes` segued takes: a request no larger cannot be what it closed
    /// the connection for, so the message does not send its reader looking at the limit.
    static let smallestMessageLimit = 1024

    private var sentence: String {
        switch storage {
        case .rejected(_, let message, _): message
        case .timeout(let command, let waited):
            "\(command) got no reply within \(Self.seconds(waited)) s; is segued running at this endpoint?"
        case .closedOnRequest(let command, let waited, let bytes) where bytes <= Self.smallestMessageLimit:
            "\(command) got no reply within \(Self.seconds(waited)) s: segued closed the connection after the "
                + "request was sent, as it does when it stops; is segued running at this endpoint?"
        case .closedOnRequest(let command, let waited, let bytes):
            "\(command) got no reply within \(Self.seconds(waited)) s: segued closed the connection after the "
                + "request was sent, as it does for a request over its limits.maxMessageBytes (this one is "
                + "\(bytes) bytes; the default limit is 1 MiB) and when it stops."
        case .silentPeer(let command, let waited, let endpoint):
            "\(command) got no reply within \(Self.seconds(waited)) s: \(endpoint) took the connection but never "
                + "sent ZeroMQ's greeting (not a ZeroMQ endpoint, say an HTTP port, or a process that is stopped "
                + "or hung)."
        case .transport(let error): "\(error)"
        case .malformed(let what): what
        case .handshake(let failure, let endpoint): Self.sentence(failure, endpoint: endpoint)
        case .keyFile(let path, let problem): "\(path) \(problem)"
        case .interrupted: "interrupted: the reply was not awaited (the daemon may still apply the request)"
        case .unreachable(let endpoint):
            "could not connect to \(endpoint): \(unreachableReason ?? "connection refused (is segued running there?)")"
        }
    }

    /// Why nothing answered the connect. For an ipc endpoint libzmq says "refused" for a socket file
    /// that is missing and for one this user may not open alike; the file says which. Read once, when
    /// the error is made, with the reentrant user and group lookups (a library shares the process).
    static func unreachableReason(_ endpoint: String) -> String? {
        guard endpoint.hasPrefix("ipc://"), !endpoint.hasPrefix("ipc://@") else { return nil }
        let path = String(endpoint.dropFirst("ipc://".count))
        var info = stat()
        guard stat(path, &info) == 0 else {
            guard errno == EACCES else { return "no socket at \(path) (is segued running there?)" }
            return "permission denied (a directory on the way to \(path) is closed to this user)"
        }
        guard access(path, W_OK) != 0, errno == EACCES else { return nil }
        let owner = userName(info.st_uid)
        let group = groupName(info.st_gid)
        let mode = "0" + String(info.st_mode & 0o777, radix: 8)
        // Connecting takes write access to the socket file.
        let who =
            info.st_mode & 0o020 != 0
            ? "that user or a member of group \(group)" : "user \(owner), the only one it lets write"
        return "permission denied (the socket is \(owner):\(group), mode \(mode); connecting takes \(who))"
    }

    private static func userName(_ uid: uid_t) -> String {
        name(of: uid) { buffer, size in
            var entry = passwd()
            var result: UnsafeMutablePointer<passwd>?
            guard getpwuid_r(uid, &entry, buffer, size, &result) == 0, result != nil else { return nil }
            return String(cString: entry.pw_name)
        }
    }

    private static func groupName(_ gid: gid_t) -> String {
        name(of: gid) { buffer, size in
            var entry = group()
            var result: UnsafeMutablePointer<group>?
            guard getgrgid_r(gid, &entry, buffer, size, &result) == 0, result != nil else { return nil }
            return String(cString: entry.gr_name)
        }
    }

    /// A reentrant lookup's name, read inside the scope of the buffer its entry points into; the
    /// number when there is none.
    private static func name(of id: UInt32, _ lookup: (UnsafeMutablePointer<CChar>, Int) -> String?) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 4096) { lookup($0.baseAddress!, $0.count) } ?? "\(id)"
    }

    static func sentence(_ failure: HandshakeFailure, endpoint: String) -> String {
        switch failure {
        case .keyRefused(let status):
            // A relay's publish endpoint refuses the same way (a subscriber cannot tell the two apart),
            // and its list is --allow, not a config file.
            return "segued at \(endpoint) refused this client's CURVE key (ZAP status \(status)); only keys listed "
                + "in its security.curve.clients (a relay's: its --allow) may connect."
        case .serverKeyRejected:
            return "segued at \(endpoint) hung up on the CURVE handshake: the server key given is not its public "
                + "key, it does not use CURVE, or this is its other endpoint (commands and subscriptions have one each)."
        case .curveRequired:
            return "segued at \(endpoint) hung up on a handshake without keys: it requires CURVE."
        case .notZeroMQ(let greeting):
            return "\(endpoint) is not a ZeroMQ endpoint: what listens there answered \"\(greeting)\" and hung up."
        case .wrongSocket(let peer):
            return "\(endpoint) is a ZeroMQ \(peer) socket" + Self.role(of: peer)
        }
    }

    /// What a socket type says of the endpoint, for a client that connected to the wrong one of segued's.
    static func role(of peer: String) -> String {
        switch peer {
        case "ROUTER": ", as segued's command endpoint is: subscriptions go to its publish endpoint."
        case "XPUB": ", as segued's publish endpoint is: commands go to its command endpoint."
        default: ", which this client cannot talk to."
        }
    }

    /// A duration as messages write it in seconds: `1`, `0.5`.
    package static func seconds(_ duration: Duration) -> String {
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
        // A code this build does not know (a newer daemon's) is `internal` here, and kept in
        // `details["code"]` as the daemon sent it.
        if ErrorCode(rawValue: raw) == nil { details["code"] = .string(raw) }
        return .rejected(code: ErrorCode(rawValue: raw) ?? .internal, message: message, details: details)
    }
}
