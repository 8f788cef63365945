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
}

/// Watches one socket's handshakes through its monitor and decides when a failure is final, so that a
/// call fails fast with the reason instead of waiting out its whole timeout in silence.
///
/// Create it before the socket connects (no event is missed), and use it on the socket's thread.
final class HandshakeMonitor {
    /// Hang-ups in a row that make a failure final. libzmq reconnects every 100 ms
    /// (`ZMQ_RECONNECT_IVL`), so this takes a few hundred milliseconds, while a single hang-up can be a
    /// daemon that was stopping or restarting.
    static let droppedLimit = 3

    let curve: Bool
    /// The PAIR socket the monitor publishes on; poll it beside the monitored socket.
    let events: ZMQSocket
    private let monitored: ZMQSocket
    private(set) var succeeded = false
    private var dropped = 0
    /// The last failure since the last success: what silence is blamed on when time runs out.
    private(set) var pending: HandshakeFailure?

    /// - Parameter name: an `inproc://` name unique within the socket's context.
    init(_ socket: ZMQSocket, name: String, curve: Bool) throws(ZMQError) {
        self.curve = curve
        monitored = socket
        try socket.monitor(name, events: [.handshakeSucceeded, .handshakeFailed])
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
    /// as there is one, and after `timeout` the failure seen so far, if any (`nil` when nothing
    /// happened at all, e.g. nobody listens yet).
    func awaitFirstHandshake(within timeout: Duration) throws(ZMQError) -> HandshakeFailure? {
        let deadline = ContinuousClock.now + timeout
        while !succeeded {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return pending }
            try events.setReceiveTimeout(left)
            guard let frames = try events.receiveMultipart() else { return pending }
            if let event = ZMQMonitorEvent(frames: frames), let failure = note(event) { return failure }
        }
        return nil
    }

    /// Stops monitoring and closes the PAIR (before the context is terminated, or that would hang).
    func close() {
        try? monitored.stopMonitor()
        events.close()
    }

    /// Folds one event; returns the failure when it is final.
    private func note(_ event: ZMQMonitorEvent) -> HandshakeFailure? {
        switch event.kind {
        case .handshakeSucceeded:
            succeeded = true
            dropped = 0
            pending = nil
            return nil
        case .handshakeFailedAuth:
            pending = .keyRefused(status: Int(event.value))
            return pending
        default:
            // CURVE on one side only shows as a mechanism mismatch when this side reads the daemon's
            // greeting first, and as a hang-up (no detail) when the daemon closes first: a race, so
            // both mean the same here. A wrong server key is always a hang-up. A lone hang-up can
            // also be a daemon going away mid-handshake, so only a mismatch or a repeat is final.
            dropped += 1
            pending = curve ? .serverKeyRejected : .curveRequired
            return event.isMechanismMismatch || dropped >= Self.droppedLimit ? pending : nil
        }
    }
}
