import SegueClient
import SegueWire

/// The handshakes of the relay's connections upstream, folded per `--from` endpoint from its XSUB's
/// socket monitor into the lines the relay logs.
///
/// libzmq never tells a connecting socket that its handshake failed: it reconnects and tries again,
/// forever (zmq_socket_monitor(3) is the only place that says so). A relay whose key a daemon refuses,
/// or that was given the wrong `--server-key`, would forward nothing and say nothing; its subscribers
/// would only see heartbeats stop. So a failure is logged once it is final (`HandshakeTally`'s rules,
/// those of `segue`'s own sockets), once a streak, and the first handshake after it is logged too.
struct UpstreamHandshakes {
    /// Whether the relay connects upstream with CURVE keys (`--server-key`, `--client-key`).
    let curve: Bool
    private var tallies: [String: HandshakeTally] = [:]
    /// The endpoints whose failure was logged and has not been followed by a handshake since.
    private var failing: Set<String> = []
    /// The endpoints asked what they are since their last handshake (`HandshakeFailure.afterHangUp`).
    private var asked: Set<String> = []

    init(curve: Bool) { self.curve = curve }

    /// The monitor events the fold reads.
    static let events: ZMQMonitorEvent.Kind = [
        .connected, .connectRetried, .disconnected, .handshakeSucceeded, .handshakeFailed,
    ]

    /// The line to log for one monitor event of the XSUB, if any.
    mutating func note(_ event: ZMQMonitorEvent, at now: ContinuousClock.Instant) -> String? {
        guard let outcome = HandshakeTally.Outcome(event) else { return nil }
        let endpoint = event.endpoint
        var tally = tallies[endpoint] ?? HandshakeTally(curve: curve)
        let hangUps = tally.hangUps
        var failure = tally.note(outcome, at: now)
        tallies[endpoint] = tally
        // The first hang-up of a streak asks the peer what it is, as `segue`'s own sockets do: not
        // ZeroMQ, or not a publisher (segued's command endpoint), is final at once.
        if tally.hangUps > hangUps, !failing.contains(endpoint), asked.insert(endpoint).inserted {
            failure = HandshakeFailure.afterHangUp(at: endpoint, from: .xsub) ?? failure
        }
        if outcome == .succeeded { asked.remove(endpoint) }
        if outcome == .succeeded {
            guard failing.remove(endpoint) != nil else { return nil }
            return "The handshake with \(endpoint) succeeded: forwarding its publications."
        }
        guard let failure, failing.insert(endpoint).inserted else { return nil }
        return Self.sentence(failure, endpoint: endpoint)
    }

    /// What is wrong and which option fixes it; the upstream may be a daemon or another relay.
    static func sentence(_ failure: HandshakeFailure, endpoint: String) -> String {
        let nothing = "; nothing is forwarded from it until this is fixed (libzmq keeps retrying)."
        switch failure {
        case .keyRefused(let status):
            return "\(endpoint) refused this relay's CURVE key (ZAP status \(status)): list the public key of "
                + "--client-key (its NAME.pub) in that daemon's security.curve.clients as an observer, or give it "
                + "to that relay's --allow" + nothing
        case .serverKeyRejected:
            return "\(endpoint) hung up on the CURVE handshake: --server-key is not its public key, or it does "
                + "not use CURVE (then drop --server-key and --client-key)" + nothing
        case .curveRequired:
            return "\(endpoint) hung up on a handshake without keys: it requires CURVE; pass --server-key and "
                + "--client-key" + nothing
        case .notZeroMQ(let greeting):
            return "\(endpoint) is not a ZeroMQ endpoint: what listens there answered \"\(greeting)\"" + nothing
        case .wrongSocket(let peer):
            return "\(endpoint) is a ZeroMQ \(peer) socket, not a publisher (give --from a segued's --publish "
                + "endpoint, or a relay's --publish)" + nothing
        }
    }
}
