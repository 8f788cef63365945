import SegueWire

/// Why a connection to segued failed its ZeroMQ handshake.
///
/// libzmq hides these: a socket whose handshake fails says nothing to its user, it reconnects and
/// tries again, so a wrong CURVE key looks exactly like a daemon that is not running. Only the socket
/// monitor (zmq_socket_monitor(3)) tells them apart.
public enum HandshakeFailure: Equatable, Sendable {
    /// The daemon's ZAP handler refused this client's public key; `status` is the ZAP status code
    /// (400 for a key not listed in `security.curve.clients`).
    case keyRefused(status: Int)
    /// A CURVE client's handshake was cut off: the server key it was given is not the daemon's (the
    /// daemon cannot open the client's HELLO box and hangs up, and CURVE has no message to say why),
    /// or the daemon does not use CURVE at all.
    case serverKeyRejected
    /// A client without keys had its handshake cut off: the daemon requires CURVE.
    case curveRequired
    /// What listens at the endpoint is not ZeroMQ: it cut the handshake off and, asked again
    /// (`GreetingProbe`), sent `greeting` (its printable start) where ZeroMQ sends its signature.
    case notZeroMQ(greeting: String)
    /// What listens there is a ZeroMQ socket of a type this one cannot talk to, `peer` (`ROUTER`:
    /// segued's command endpoint, given where a publish endpoint belongs; `XPUB`: the other way round).
    case wrongSocket(peer: String)
}

extension HandshakeFailure {
    /// Asks the peer at `endpoint` what it is (`GreetingProbe`) after a hang-up mid-handshake; the
    /// failure its answer makes final: not ZeroMQ, or a socket `kind` cannot talk to. Blocks up to
    /// `HandshakeMonitor.probeWait`.
    package static func afterHangUp(at endpoint: String, from kind: ZMQSocket.Kind) -> HandshakeFailure? {
        switch GreetingProbe.ask(endpoint, within: HandshakeMonitor.probeWait) {
        case .foreign(let greeting): .notZeroMQ(greeting: greeting)
        case .zeroMQ(_, let type?) where !HandshakeMonitor.canTalk(kind, to: type): .wrongSocket(peer: type)
        default: nil
        }
    }
}

/// Watches one socket's handshakes through its monitor and decides when a failure is final, so that a
/// call fails fast with the reason instead of waiting out its whole timeout in silence.
///
/// Create it before the socket connects (no event is missed), and use it on the socket's thread.
final class HandshakeMonitor {
    /// The PAIR socket the monitor publishes on; poll it beside the monitored socket.
    let events: ZMQSocket
    private let monitored: ZMQSocket
    private let endpoint: String
    private var tally: HandshakeTally
    /// Whether the peer was asked directly (`GreetingProbe`), which the first hang-up prompts.
    private var asked = false
    /// What the peer said when asked, when that makes the failure final: not ZeroMQ, or a socket
    /// type this one cannot talk to.
    private var answer: HandshakeFailure?

    var succeeded: Bool { tally.succeeded }

    /// Connections the peer closed after a handshake (`HandshakeTally.closedAfterHandshake`).
    var closedAfterHandshake: Int { tally.closedAfterHandshake }

    /// The connection is made and the peer has not greeted (`HandshakeTally.handshaking`).
    var awaitingGreeting: Bool { tally.handshaking }

    /// Nothing listens at the endpoint (`HandshakeTally.connectionRefused`).
    var connectionRefused: Bool { tally.connectionRefused }

    /// What silence is blamed on now: see `HandshakeTally.blame(at:)`.
    var blame: HandshakeFailure? { answer ?? tally.blame(at: .now) }

    /// - Parameters:
    ///   - name: an `inproc://` name unique within the socket's context.
    ///   - endpoint: where the socket connects, asked directly when a hang-up needs explaining.
    init(_ socket: ZMQSocket, name: String, endpoint: String, curve: Bool) throws(ZMQError) {
        tally = HandshakeTally(curve: curve)
        monitored = socket
        self.endpoint = endpoint
        try socket.monitor(
            name, events: [.handshakeSucceeded, .handshakeFailed, .connected, .connectRetried, .disconnected])
        events = try ZMQSocket(socket.context, .pair)
        try events.setLinger(.zero)
        try events.connect(name)
    }

    /// Reads the events already queued; returns the failure once one is final.
    func drain() throws(ZMQError) -> HandshakeFailure? {
        while let frames = try events.receiveMultipart(dontWait: true) {
            if let event = ZMQMonitorEvent(frames: frames), let failure = note(event) { return failure }
        }
        return nil
    }

    /// Waits up to `timeout` for the first handshake: `nil` once one succeeded, a final failure as soon
    /// as there is one, and after `timeout` what the silence is blamed on, if anything (`nil` when
    /// nothing happened at all, e.g. nobody listens yet, or the last hang-up is long past).
    func awaitFirstHandshake(within timeout: Duration) throws(ZMQError) -> HandshakeFailure? {
        let deadline = ContinuousClock.now + timeout
        while !tally.succeeded {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return blame }
            try events.setReceiveTimeout(left)
            guard let frames = try events.receiveMultipart() else { return blame }
            if let event = ZMQMonitorEvent(frames: frames), let failure = note(event) { return failure }
        }
        return nil
    }

    /// Stops monitoring and closes the PAIR (before the context is terminated, or that would hang).
    func close() {
        try? monitored.stopMonitor()
        events.close()
    }

    private func note(_ event: ZMQMonitorEvent) -> HandshakeFailure? {
        // The monitor is asked for handshake and connection events only; any other would be a failure.
        let outcome = HandshakeTally.Outcome(event) ?? .dropped(mismatch: event.isMechanismMismatch)
        let hangUps = tally.hangUps
        let failure = tally.note(outcome, at: .now)
        guard tally.hangUps > hangUps, !asked else { return failure }
        // libzmq reports a server that is not ZeroMQ as a hang-up too, like a daemon refusing a
        // mechanism, or not at all (a CURVE client only sees the disconnect): ask it once.
        // A socket of the wrong type hangs up without detail too (a command endpoint given for the
        // publish endpoint): its READY says what it is.
        asked = true
        answer = HandshakeFailure.afterHangUp(at: endpoint, from: monitored.kind)
        return answer ?? failure
    }

    /// Whether a socket of `kind` can talk to a peer of ZMTP socket type `peer` (rfc.zeromq.org/spec/37).
    static func canTalk(_ kind: ZMQSocket.Kind, to peer: String) -> Bool {
        let peers: [String] =
            switch kind {
            case .req: ["REP", "ROUTER"]
            case .rep: ["REQ", "DEALER"]
            case .dealer: ["REP", "DEALER", "ROUTER"]
            case .router: ["REQ", "DEALER", "ROUTER"]
            case .pub, .xpub: ["SUB", "XSUB"]
            case .sub, .xsub: ["PUB", "XPUB"]
            case .push: ["PULL"]
            case .pull: ["PUSH"]
            case .pair: ["PAIR"]
            }
        return peers.contains(peer)
    }

    /// How long the direct question waits for a first byte: a ZeroMQ peer sends it on connecting.
    static let probeWait: Duration = .milliseconds(500)
}
