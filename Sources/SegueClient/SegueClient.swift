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
///
/// Several daemons on one log (docs/operations.md, "Several daemons on one log"): `endpoint` may list
/// several endpoints, comma-separated. A `moved` reply names the daemon that leads the navigator, and
/// the request goes there with the same id; with several endpoints, a daemon that stays silent or
/// refuses the connection is left for the next one, and `unavailable` (a takeover under way, or
/// another daemon that appended first) is retried after a pause, all within `timeout`. With one
/// endpoint, a leader that stays silent or refuses the connection is left for the endpoint given,
/// which names the leader since: the next attempt goes there.
public final class SegueClient {
    /// segued's default command endpoint (`SEGUE_ENDPOINT` in the CLI).
    public static let defaultEndpoint = "tcp://127.0.0.1:7400"
    /// segued's default publish endpoint (`SEGUE_PUBLISH_ENDPOINT` in the CLI).
    public static let defaultPublishEndpoint = "tcp://127.0.0.1:7401"

    /// Where requests go now: the first endpoint given, then the daemon a `moved` named or the next
    /// one when a daemon is unreachable (with one endpoint given, that one again).
    public private(set) var endpoint: String
    /// Every endpoint given.
    public let endpoints: [String]
    /// The whole time a call may take, retries included.
    public var timeout: Duration
    /// Resends after silence: the deadline is split evenly over `retries + 1` attempts. Kept in
    /// 0...1000. With several endpoints it is not used: each daemon gets 300 ms before the next,
    /// twice as long at each pass over the list.
    public var retries: Int { didSet { retries = min(max(0, retries), 1000) } }
    /// Asked every `interruptionCheck` while a call waits: `true` ends the call at once with
    /// `.interrupted`, as a prompt's Ctrl-C does. The request may have reached the daemon: retry it
    /// with the error's `requestID`, never as a new request.
    public var interruption: (() -> Bool)?
    static let interruptionCheck = Duration.milliseconds(50)
    let context: ZMQContext
    private(set) var socket: ZMQSocket
    /// Turns a refused or mismatched handshake into `.handshake` at once instead of a silent timeout.
    private var handshakes: HandshakeMonitor
    private let curve: CurveCredentials?
    private var connections = 0
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
        endpoints = Self.split(endpoint)
        self.endpoint = endpoints[0]
        self.timeout = timeout
        self.retries = min(max(0, retries), 1000)
        self.curve = curve
        idPrefix = Self.randomPrefix()
        do {
            context = try ZMQContext()
            (socket, handshakes) = try Self.connect(context, endpoints[0], curve: curve, number: 0)
        } catch {
            throw .transport(error)
        }
    }

    /// The endpoints of a comma-separated list, blanks around them dropped.
    public static func split(_ list: String) -> [String] {
        let parts = list.split(separator: ",").map { part in
            String(part.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
        }.filter { !$0.isEmpty }
        return parts.isEmpty ? [list] : parts
    }

    private static func connect(_ context: ZMQContext, _ endpoint: String, curve: CurveCredentials?, number: Int)
        throws(ZMQError) -> (ZMQSocket, HandshakeMonitor)
    {
        let socket = try ZMQSocket(context, .dealer)
        try socket.setLinger(.zero)
        if let curve { try curve.apply(to: socket) }
        let monitor = try HandshakeMonitor(
            socket, name: "inproc://segue-client-monitor-\(number)", endpoint: endpoint, curve: curve != nil)
        try socket.connect(endpoint)
        return (socket, monitor)
    }

    /// Sends later requests to `endpoint`, on a new socket (what the old one had queued is dropped:
    /// every retry repeats its id, so nothing is applied twice).
    private func move(to endpoint: String) throws(SegueClientError) {
        connections += 1
        do {
            let (socket, monitor) = try Self.connect(context, endpoint, curve: curve, number: connections)
            handshakes.close()
            self.socket.close()
            self.socket = socket
            handshakes = monitor
            self.endpoint = endpoint
        } catch {
            throw .transport(error)
        }
    }

    /// The endpoint after the current one in `endpoints`.
    private var nextEndpoint: String {
        guard let index = endpoints.firstIndex(of: endpoint) else { return endpoints[0] }
        return endpoints[(index + 1) % endpoints.count]
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
    /// Blocks for at most `timeout`. The error carries the request's `id` (`requestID`), to retry it
    /// safely.
    ///
    /// - Throws: `.rejected` for `ok: false` (see `code`); `.timeout` when every attempt stayed
    ///   unanswered; `.unreachable` when nothing listens; `.handshake` for a refused CURVE handshake;
    ///   `.transport` for a ZeroMQ failure; `.malformed` for a reply that is not segued's.
    @discardableResult
    public func call(_ request: JSONObject) throws(SegueClientError) -> JSONObject {
        var request = request
        let id: String
        switch request["id"] {
        case .string(let given)?: id = given
        // An integer id is the caller's too (the daemon echoes it as a string): replacing it would
        // make a retry under the same id a new command.
        case .int(let given)?: id = String(given)
        case .double(let given)? where Int64(exactly: given) != nil: id = String(Int64(given))
        default:
            id = nextID()
            request["id"] = .string(id)
        }
        do throws(SegueClientError) { return try call(request, id: id) } catch {
            var error = error
            error.requestID = id
            throw error
        }
    }

    /// `call` once the request has its id.
    private func call(_ request: JSONObject, id: String) throws(SegueClientError) -> JSONObject {
        let bytes = JSON.object(request).serializedBytes()
        let attempts = retries + 1
        let perAttempt = timeout / attempts
        let command = request["cmd"]?.stringValue ?? "request"
        if endpoints.count > 1 { return try callAny(bytes, id: id, command: command) }
        let closedBefore = handshakes.closedAfterHandshake
        let deadline = ContinuousClock.now + timeout
        var hops = 0
        var attempt = 0
        while attempt < attempts {
            attempt += 1
            let reply: JSONObject?
            do throws(SegueClientError) {
                reply = try sendAndAwait(bytes, id: id, within: perAttempt)
            } catch  where error.kind == .unreachable && endpoint != endpoints[0] {
                // A leader that a `moved` named refuses the connection now: back to the endpoint
                // given, which names the leader since (it may lead itself) once it has seen the old
                // one go. Not a silent attempt: asked again after a pause, until the deadline.
                try move(to: endpoints[0])
                hops = 0
                if ContinuousClock.now < deadline { attempt -= 1 }
                Self.pause(.milliseconds(50), before: deadline)
                continue
            }
            guard let reply else {
                // A silent leader that a `moved` named: the next attempt goes to the endpoint given.
                if endpoint != endpoints[0], attempt < attempts {
                    try move(to: endpoints[0])
                    hops = 0
                }
                continue
            }
            if let leader = Self.movedLeader(reply), hops < Self.maxHops {
                hops += 1
                attempt -= 1
                try move(to: leader)
                continue
            }
            guard reply["ok"] == .bool(true) else { throw SegueClientError.rejection(reply) }
            return reply
        }
        // Silence right after failed handshakes (and none that succeeded since) is the handshake's fault.
        _ = try? handshakes.drain()
        if let failure = handshakes.blame { throw .handshake(failure, endpoint: endpoint) }
        if handshakes.awaitingGreeting { throw .silentPeer(command: command, waited: timeout, endpoint: endpoint) }
        if handshakes.closedAfterHandshake > closedBefore {
            throw .closedOnRequest(command: command, waited: timeout, bytes: bytes.count)
        }
        throw .timeout(command: command, waited: timeout)
    }

    /// Most `moved` replies followed in a row: leadership settles within a poll or two, so more
    /// means daemons that disagree about who leads for now (with one endpoint, the call fails; with
    /// several, it pauses and asks again until its timeout).
    static let maxHops = 8

    /// The leader a `moved` reply names.
    static func movedLeader(_ reply: JSONObject) -> String? {
        guard reply["ok"] != .bool(true), let error = reply["error"]?.objectValue,
            error["code"]?.stringValue == ErrorCode.moved.rawValue
        else { return nil }
        return error["leader"]?.stringValue
    }

    /// How long one daemon of several gets to answer before the request goes to the next, in the
    /// first round of the list; doubled each round after (`failoverWait(round:)`). A reply comes only
    /// on the socket that sent the request, so a wait shorter than the daemons' answer (a `history`
    /// page on a busy daemon) would leave every one of them before it answers.
    static let failoverWait = Duration.milliseconds(300)

    /// The wait in `round` (0 for the first pass over the list): 300 ms, then 600 ms, 1.2 s, …
    static func failoverWait(round: Int) -> Duration { failoverWait * (1 << min(round, 10)) }

    /// `call` with several endpoints: until `timeout`, follows `moved` (pausing after `maxHops` in a
    /// row), leaves a daemon that is silent or refuses the connection for the next, and retries
    /// `unavailable` after a pause.
    private func callAny(_ bytes: [UInt8], id: String, command: String) throws(SegueClientError) -> JSONObject {
        let deadline = ContinuousClock.now + timeout
        var lastRefusal: JSONObject?
        var hops = 0
        // Endpoints that refused the connection since the last answer: when every one has, nothing
        // listens at any of them, which is said at once rather than after the timeout.
        var refused: Set<String> = []
        // Endpoints left for silence, which makes the rounds of the list.
        var silences = 0
        while ContinuousClock.now < deadline {
            let round = silences / endpoints.count
            let wait = min(Self.failoverWait(round: round), deadline - ContinuousClock.now)
            var reply: JSONObject?
            do throws(SegueClientError) {
                reply = try sendAndAwait(bytes, id: id, within: wait)
            } catch  where error.kind == .unreachable || error.kind == .transport {
                if error.kind == .unreachable {
                    refused.insert(endpoint)
                    if refused.count == Set(endpoints).count {
                        throw .unreachable(endpoint: endpoints.joined(separator: ", "))
                    }
                }
                reply = nil
            }
            if reply != nil { refused = [] }
            guard let reply else {
                silences += 1
                try move(to: nextEndpoint)
                Self.pause(.milliseconds(10), before: deadline)
                continue
            }
            if reply["ok"] == .bool(true) { return reply }
            if let leader = Self.movedLeader(reply) {
                hops += 1
                if leader != endpoint { try move(to: leader) }
                if hops < Self.maxHops { continue }
                // Daemons that send each other the command disagree about who leads, as they do
                // for the poll or two a change of leadership takes: ask again after a pause.
            } else if reply["error"]?["code"]?.stringValue != ErrorCode.unavailable.rawValue {
                throw SegueClientError.rejection(reply)
            }
            lastRefusal = reply
            hops = 0
            Self.pause(.milliseconds(50), before: deadline)
        }
        if let lastRefusal { throw SegueClientError.rejection(lastRefusal) }
        throw .timeout(command: command, waited: timeout)
    }

    private func sendAndAwait(_ bytes: [UInt8], id: String, within wait: Duration) throws(SegueClientError)
        -> JSONObject?
    {
        do {
            try socket.setSendTimeout(wait)
            guard try send(bytes) else { return nil }
        } catch {
            throw .transport(error)
        }
        return try awaitReply(id: id, within: wait)
    }

    /// Sends a request behind an empty delimiter frame, as a REQ does: a ROUTER–DEALER broker in
    /// between (`zmq_proxy`) pushes this client's address before it, and segued answers in that
    /// whole envelope, so the broker can route the reply back. The reply's body is its last frame.
    private func send(_ bytes: [UInt8]) throws(ZMQError) -> Bool {
        try socket.sendMultipart([[], bytes])
    }

    private static func pause(_ duration: Duration, before deadline: ContinuousClock.Instant) {
        let left = min(duration, deadline - ContinuousClock.now)
        if left > .zero { usleep(UInt32(left / .microseconds(1))) }
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
            if let interruption, interruption() { throw .interrupted }
            let frames: [[UInt8]]?
            let failure: HandshakeFailure?
            do {
                let ready = try poller.poll(timeout: interruption == nil ? left : min(left, Self.interruptionCheck))
                failure = ready[monitor].contains(.readable) ? try handshakes.drain() : nil
                frames = ready[replies].contains(.readable) ? try socket.receiveMultipart(dontWait: true) : nil
            } catch {
                throw .transport(error)
            }
            if let failure { throw .handshake(failure, endpoint: endpoint) }
            if handshakes.connectionRefused { throw .unreachable(endpoint: endpoint) }
            guard let frames else { continue }
            guard let body = frames.last, let json = try? JSON.parse(body), let object = json.objectValue else {
                throw .malformed("The reply from \(endpoint) is not a JSON object; is segued's command endpoint there?")
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
