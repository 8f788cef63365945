import Glibc
import SegueCore
import SegueWire

/// A blocking client of `segued`'s command socket (docs/protocol.md, "Requests and replies"): one request, one reply,
/// with a deadline and retries.
///
/// It owns a DEALER socket, so like every ZeroMQ socket it belongs to the thread that uses it (the
/// class is not `Sendable`). Every request carries an `id` (the caller's, or a generated one); a retry
/// resends the same bytes with the same `id`, and the daemon answers a repeated id with the original
/// reply without appending again, so retrying a `push` after a lost reply pushes once (the ZeroMQ
/// guide's Lazy Pirate, made safe by idempotency keys). Replies whose id is not the one awaited
/// (late answers to an earlier, abandoned call) are dropped.
public final class SegueClient {
    public static let defaultEndpoint = "tcp://127.0.0.1:7400"
    public static let defaultPublishEndpoint = "tcp://127.0.0.1:7401"

    public let endpoint: String
    /// The whole time a call may take, retries included.
    public var timeout: Duration
    /// Resends after silence: the deadline is split evenly over `retries + 1` attempts.
    public var retries: Int
    let context: ZMQContext
    let socket: ZMQSocket
    /// Turns a refused or mismatched handshake into `.handshake` at once instead of a silent timeout.
    private let handshakes: HandshakeMonitor
    private let idPrefix: String
    private var counter = 0

    /// Connects (in the background, as ZeroMQ does): a missing daemon shows up as `.timeout` on the
    /// first call, not here, and a handshake the daemon refuses (a wrong CURVE key, CURVE on one side
    /// only) as `.handshake`, as soon as it is known.
    ///
    /// - Parameter curve: the server's public key and this client's key pair (Z85), when the daemon
    ///   runs with CURVE.
    public init(
        endpoint: String = SegueClient.defaultEndpoint, timeout: Duration = .seconds(5), retries: Int = 2,
        curve: CurveCredentials? = nil
    ) throws(SegueClientError) {
        self.endpoint = endpoint
        self.timeout = timeout
        self.retries = max(0, retries)
        idPrefix = Self.randomPrefix()
        do {
            context = try ZMQContext()
            socket = try ZMQSocket(context, .dealer)
            try socket.setLinger(.zero)
            if let curve { try curve.apply(to: socket) }
            handshakes = try HandshakeMonitor(socket, name: "inproc://segue-client-monitor", curve: curve != nil)
            try socket.connect(endpoint)
        } catch {
            throw .transport(error)
        }
    }

    deinit {
        handshakes.close()
        socket.close()
        context.terminate()
    }

    /// A fresh request id, unique to this client: `<random>-<counter>`.
    public func nextID() -> String {
        counter += 1
        return "\(idPrefix)-\(counter)"
    }

    /// Sends `request` (its `id` filled in when absent) and returns the `ok: true` reply.
    ///
    /// - Throws: `.rejected` for `ok: false`, `.timeout` when every attempt stayed unanswered.
    @discardableResult
    public func call(_ request: JSONObject) throws(SegueClientError) -> JSONObject {
        var request = request
        let id: String
        if let given = request["id"]?.stringValue {
            id = given
        } else {
            id = nextID()
            request["id"] = .string(id)
        }
        let bytes = JSON.object(request).serializedBytes()
        let attempts = retries + 1
        let perAttempt = timeout / attempts
        let command = request["cmd"]?.stringValue ?? "request"
        for _ in 0..<attempts {
            do {
                // A full pipe blocks for at most one attempt's share, then counts as a silent attempt.
                try socket.setSendTimeout(perAttempt)
                guard try socket.send(bytes) else { continue }
            } catch {
                throw .transport(error)
            }
            if let reply = try awaitReply(id: id, within: perAttempt) {
                guard reply["ok"] == .bool(true) else { throw SegueClientError.rejection(reply) }
                return reply
            }
        }
        // Silence right after failed handshakes (and none that succeeded since) is the handshake's fault.
        _ = try? handshakes.drain()
        if let failure = handshakes.blame { throw .handshake(failure, endpoint: endpoint) }
        throw .timeout(command: command, waited: timeout)
    }

    /// Builds and sends one request: `cmd`, `navigator`, the envelope and the arguments.
    @discardableResult
    public func call(
        _ cmd: String, navigator: String? = nil, _ arguments: JSONObject = [:], envelope: CommandEnvelope = .init()
    ) throws(SegueClientError) -> JSONObject {
        var request: JSONObject = ["cmd": .string(cmd)]
        if let id = envelope.requestID { request["id"] = .string(id) }
        if let navigator { request["navigator"] = .string(navigator) }
        if let expect = envelope.expect { request["expect"] = .int(expect) }
        if let owner = envelope.owner { request["owner"] = .string(owner) }
        for (key, value) in arguments.members { request[key] = value }
        return try call(request)
    }

    /// Waits for the reply carrying `id`, dropping others; `nil` when the time is up. Watches the
    /// handshakes meanwhile, so that a final handshake failure ends the wait at once.
    private func awaitReply(id: String, within duration: Duration) throws(SegueClientError) -> JSONObject? {
        let deadline = ContinuousClock.now + duration
        var poller = ZMQPoller()
        let replies = poller.add(socket)
        let monitor = poller.add(handshakes.events)
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return nil }
            let frames: [[UInt8]]?
            let failure: HandshakeFailure?
            do {
                let ready = try poller.poll(timeout: left)
                failure = ready[monitor].contains(.readable) ? try handshakes.drain() : nil
                frames = ready[replies].contains(.readable) ? try socket.receiveMultipart(dontWait: true) : nil
            } catch {
                throw .transport(error)
            }
            if let failure { throw .handshake(failure, endpoint: endpoint) }
            if handshakes.connectionRefused { throw .unreachable(endpoint: endpoint) }
            guard let frames else { continue }
            guard let body = frames.last, let json = try? JSON.parse(body), let object = json.objectValue else {
                throw .malformed("a reply that is not a JSON object")
            }
            if object["id"]?.stringValue == id { return object }
        }
    }

    private static func randomPrefix() -> String {
        var bytes = [UInt8](repeating: 0, count: 6)
        for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255) }
        return bytes.map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}

/// CURVE credentials for a client: the server's public key and the client's own pair, all Z85.
public struct CurveCredentials: Sendable, Equatable {
    public var serverPublicKey: String
    public var publicKey: String
    public var secretKey: String

    public init(serverPublicKey: String, publicKey: String, secretKey: String) {
        self.serverPublicKey = serverPublicKey
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    package func apply(to socket: ZMQSocket) throws(ZMQError) {
        try socket.setCurveServerKey(serverPublicKey)
        try socket.setCurvePublicKey(publicKey)
        try socket.setCurveSecretKey(secretKey)
    }
}
