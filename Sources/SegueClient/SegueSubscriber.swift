import SegueCore
import SegueProtocol
import SegueWire

/// A SUB socket on the daemon's publish endpoint: events, ticks and heartbeats by topic prefix.
///
/// Raw: it shows what arrives, gaps included. `CatchUpSubscription` adds the Clone pattern on top.
/// Like every socket it belongs to the thread that uses it.
public final class SegueSubscriber {
    public let endpoint: String
    let context: ZMQContext
    let socket: ZMQSocket

    /// Topic prefixes for a set of navigators (all of them when `navigators` is empty).
    public static func topics(navigators: [String], events: Bool = true, ticks: Bool = true, heartbeats: Bool = false)
        -> [String]
    {
        let scopes: [String?] = navigators.isEmpty ? [nil] : navigators
        var out: [String] = []
        if events { out += scopes.map { Topic.events(of: $0) } }
        if ticks { out += scopes.map { Topic.ticks(of: $0) } }
        if heartbeats { out.append(Topic.heartbeatTopic) }
        return out
    }

    /// The receive limit of a subscriber (`ZMQ_RCVHWM`), in messages: the daemon's default send limit
    /// per subscriber, so that together they hold at most twice that.
    public static let defaultReceiveLimit = 100_000

    /// Subscribes, connects, and waits (up to `ready`) for the connection's handshake, so that what
    /// the daemon publishes after this returns is very likely to arrive; a catch-up still checks.
    ///
    /// - Parameter receiveLimit: messages queued for this subscriber before libzmq drops new ones
    ///   (`ZMQ_RCVHWM`). A reader that falls behind loses messages, as it would at the daemon's send
    ///   limit, instead of growing without bound (an unlimited queue grew a stalled `segue watch` by
    ///   65 MB a second); the catch-up reads what was lost from the log by seq.
    /// - Throws: `.handshake` when the daemon refuses the handshake (a wrong CURVE key, CURVE on one
    ///   side only): a subscriber that can never hear anything should not wait in silence.
    public init(
        endpoint: String = SegueClient.defaultPublishEndpoint, topics: [String], ready: Duration = .seconds(2),
        curve: CurveCredentials? = nil, receiveLimit: Int = SegueSubscriber.defaultReceiveLimit
    ) throws(SegueClientError) {
        self.endpoint = endpoint
        let failure: HandshakeFailure?
        do {
            context = try ZMQContext()
            socket = try ZMQSocket(context, .sub)
            try socket.setLinger(.zero)
            try socket.setReceiveHighWaterMark(receiveLimit)
            // Subscriptions leave through the send queue, at connect too: past libzmq's default of
            // 1,000 the rest (`hb/` among them) would be dropped in silence. They are a few bytes each.
            try socket.setSendHighWaterMark(0)
            if let curve { try curve.apply(to: socket) }
            for topic in topics { try socket.subscribe(topic) }
            let handshakes = try HandshakeMonitor(
                socket, name: "inproc://segue-sub-monitor", endpoint: endpoint, curve: curve != nil)
            try socket.connect(endpoint)
            failure = try handshakes.awaitFirstHandshake(within: ready)
            handshakes.close()
        } catch {
            throw .transport(error)
        }
        if let failure { throw .handshake(failure, endpoint: endpoint) }
    }

    deinit {
        socket.close()
        context.terminate()
    }

    /// The next publication, or `nil` after `timeout` with nothing (`nil` timeout: wait forever).
    public func next(timeout: Duration?) throws(SegueClientError) -> Publication? {
        guard let frames = try nextFrames(timeout: timeout) else { return nil }
        return try SegueClientError.decoding { () throws(WireError) in
            try Publication(topic: frames.topic, body: frames.body)
        }
    }

    /// The next raw `(topic, body)` pair.
    public func nextFrames(timeout: Duration?) throws(SegueClientError) -> (topic: [UInt8], body: [UInt8])? {
        do {
            try socket.setReceiveTimeout(timeout)
            while true {
                guard let frames = try socket.receiveMultipart() else { return nil }
                if frames.count == 2 { return (frames[0], frames[1]) }
            }
        } catch {
            throw .transport(error)
        }
    }
}
