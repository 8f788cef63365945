import SegueWire

/// The fold of one socket's handshake events: when a failure is final, and what a silence that ends a
/// wait is blamed on. Time comes in with each event, so the rules are tested without sockets or sleeps.
package struct HandshakeTally {
    /// What the socket monitor reported about one handshake.
    package enum Outcome: Equatable {
        case succeeded
        /// The daemon's ZAP handler refused the key (`ZMQ_EVENT_HANDSHAKE_FAILED_AUTH`).
        case refused(status: Int)
        /// The handshake was cut off; `mismatch` when libzmq saw the two sides use different mechanisms.
        case dropped(mismatch: Bool)
        /// The TCP (or ipc) connection was made (`ZMQ_EVENT_CONNECTED`).
        case connected
        /// The connection closed (`ZMQ_EVENT_DISCONNECTED`): a hang-up when no handshake outcome came
        /// since it was made (libzmq reports a CURVE client cut off by a server that is not ZeroMQ so).
        case disconnected
        /// A connect failed and libzmq will try again (`ZMQ_EVENT_CONNECT_RETRIED`): refused, or no
        /// route. A connect that gets no answer at all takes far longer than the retry interval.
        case connectRetried
    }

    /// Failed connects in a row, none ever made, that make "nothing listens there" final: about two
    /// reconnect intervals (200 ms), so that a refused connect is reported well within a second.
    static let retriedLimit = 2

    /// Hang-ups in a row that make a failure final. libzmq reconnects every 100 ms
    /// (`ZMQ_RECONNECT_IVL`), so this takes a few hundred milliseconds, while a single hang-up can be a
    /// daemon that was stopping or restarting.
    static let droppedLimit = 3

    /// How long a hang-up still explains a silence. A handshake that keeps failing hangs up again
    /// within one reconnect interval (100 ms); a hang-up followed by nothing for longer than this is a
    /// daemon that went away mid-handshake, and the silence after it is a plain timeout.
    static let hangUpExplainsSilenceFor: Duration = .milliseconds(500)

    package let curve: Bool
    package private(set) var succeeded = false
    /// Hang-ups mid-handshake since the start (never reset: a caller compares it before and after).
    package private(set) var hangUps = 0
    /// Connections closed after their handshake succeeded (never reset: a caller compares it before
    /// and after). libzmq closes a connection when a message exceeds the peer's `ZMQ_MAXMSGSIZE`;
    /// a daemon stopping closes it too.
    private(set) var closedAfterHandshake = 0
    /// The current connection completed its handshake.
    private var established = false
    /// A connection is made and its handshake has had no outcome yet: at the end of a wait, a peer
    /// that took the connection and never greeted (not ZeroMQ, or a process stopped or hung).
    private(set) var handshaking = false
    private var dropped = 0
    private var failure: HandshakeFailure?
    private var lastHangUp: ContinuousClock.Instant?
    private var connectedOnce = false
    private var retried = 0

    package init(curve: Bool) { self.curve = curve }

    /// Nothing listens at the endpoint: connects failed again and again and none was ever made. Once a
    /// connection was made, refusals are a daemon restarting, which a client waits out.
    var connectionRefused: Bool { !connectedOnce && retried >= Self.retriedLimit }

    /// Folds one event; returns the failure when it is final.
    package mutating func note(_ outcome: Outcome, at now: ContinuousClock.Instant) -> HandshakeFailure? {
        switch outcome {
        case .connected:
            connectedOnce = true
            handshaking = true
            established = false
            return nil
        case .disconnected:
            if established { closedAfterHandshake += 1 }
            established = false
            guard handshaking else { return nil }
            return note(.dropped(mismatch: false), at: now)
        case .connectRetried:
            retried += 1
            return nil
        case .succeeded:
            handshaking = false
            established = true
            succeeded = true
            dropped = 0
            failure = nil
            lastHangUp = nil
            return nil
        case .refused(let status):
            handshaking = false
            failure = .keyRefused(status: status)
            return failure
        case .dropped(let mismatch):
            // CURVE on one side only shows as a mechanism mismatch when this side reads the daemon's
            // greeting first, and as a hang-up (no detail) when the daemon closes first: a race, so
            // both mean the same here. A wrong server key is always a hang-up. A lone hang-up can
            // also be a daemon going away mid-handshake, so only a mismatch or a repeat is final.
            handshaking = false
            dropped += 1
            hangUps += 1
            lastHangUp = now
            failure = curve ? .serverKeyRejected : .curveRequired
            return mismatch || dropped >= Self.droppedLimit ? failure : nil
        }
    }

    /// What a wait that ended in silence at `now` is blamed on: a refused key always (the daemon said so),
    /// a hang-up only while it is recent enough to be the reason; otherwise `nil`, a timeout.
    func blame(at now: ContinuousClock.Instant) -> HandshakeFailure? {
        switch failure {
        case nil: return nil
        case .keyRefused: return failure
        case .serverKeyRejected, .curveRequired, .notZeroMQ, .wrongSocket:
            guard let lastHangUp, now - lastHangUp <= Self.hangUpExplainsSilenceFor else { return nil }
            return failure
        }
    }
}

extension HandshakeTally.Outcome {
    /// What a socket monitor event says about a handshake; `nil` for events that say nothing of one.
    package init?(_ event: ZMQMonitorEvent) {
        switch event.kind {
        case .handshakeSucceeded: self = .succeeded
        case .handshakeFailedAuth: self = .refused(status: Int(event.value))
        case .connected: self = .connected
        case .connectRetried: self = .connectRetried
        case .disconnected: self = .disconnected
        case .handshakeFailedNoDetail, .handshakeFailedProtocol: self = .dropped(mismatch: event.isMechanismMismatch)
        default: return nil
        }
    }
}
