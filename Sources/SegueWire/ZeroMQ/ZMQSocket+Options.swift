import CZeroMQ

/// Socket options (`zmq_setsockopt` / `zmq_getsockopt`), one method per option SegueWire needs.
///
/// Options set before ``ZMQSocket/bind(_:)`` or ``ZMQSocket/connect(_:)`` apply to every later connection;
/// libzmq applies most of them to new connections only, so set them first.
extension ZMQSocket {
    // MARK: Lifetime and flow control

    /// `ZMQ_LINGER`: how long ``close()`` lets unsent messages wait for delivery; `nil` is forever.
    package func setLinger(_ linger: Duration?) throws(ZMQError) {
        try setOption(ZMQ_LINGER, "ZMQ_LINGER", Int32(ZMQ.milliseconds(linger)))
    }

    /// `ZMQ_LINGER` as set; `nil` means forever.
    package var linger: Duration? {
        get throws(ZMQError) {
            let milliseconds = try intOption(ZMQ_LINGER, "ZMQ_LINGER")
            return milliseconds < 0 ? nil : .milliseconds(milliseconds)
        }
    }

    /// `ZMQ_SNDHWM`: messages queued per peer before sends block or drop (PUB drops); 0 is unlimited.
    package func setSendHighWaterMark(_ messages: Int) throws(ZMQError) {
        try setOption(ZMQ_SNDHWM, "ZMQ_SNDHWM", Int32(clamping: messages))
    }

    /// `ZMQ_RCVHWM`: messages queued per peer on the receiving side; 0 is unlimited.
    package func setReceiveHighWaterMark(_ messages: Int) throws(ZMQError) {
        try setOption(ZMQ_RCVHWM, "ZMQ_RCVHWM", Int32(clamping: messages))
    }

    /// `ZMQ_RCVHWM` as set.
    package var receiveHighWaterMark: Int {
        get throws(ZMQError) { Int(try intOption(ZMQ_RCVHWM, "ZMQ_RCVHWM")) }
    }

    /// `ZMQ_MAXMSGSIZE`: a peer that sends a larger message is disconnected, and the message is never
    /// delivered ("If a peer sends a message larger than ZMQ_MAXMSGSIZE it is disconnected"). `nil` is no limit.
    package func setMaxMessageSize(_ bytes: Int?) throws(ZMQError) {
        try setOption(ZMQ_MAXMSGSIZE, "ZMQ_MAXMSGSIZE", Int64(bytes ?? -1))
    }

    /// `ZMQ_SNDTIMEO`: how long a blocking send waits before returning `false`; `nil` is forever.
    package func setSendTimeout(_ timeout: Duration?) throws(ZMQError) {
        try setOption(ZMQ_SNDTIMEO, "ZMQ_SNDTIMEO", ZMQ.milliseconds(timeout))
    }

    /// `ZMQ_RCVTIMEO`: how long a blocking receive waits before returning `nil`; `nil` is forever.
    package func setReceiveTimeout(_ timeout: Duration?) throws(ZMQError) {
        try setOption(ZMQ_RCVTIMEO, "ZMQ_RCVTIMEO", ZMQ.milliseconds(timeout))
    }

    /// `ZMQ_IMMEDIATE`: queue messages only on completed connections, so a DEALER does not park requests
    /// on a peer that is not there yet.
    package func setImmediate(_ enabled: Bool) throws(ZMQError) {
        try setOption(ZMQ_IMMEDIATE, "ZMQ_IMMEDIATE", Int32(enabled ? 1 : 0))
    }

    // MARK: Routing

    /// `ZMQ_SUBSCRIBE` on a SUB socket: receive messages whose first frame starts with `prefix` (bytewise;
    /// end a topic with a separator such as `/` so that `tick/main/` does not also match `tick/main2/`).
    package func subscribe(_ prefix: [UInt8]) throws(ZMQError) {
        try setOption(ZMQ_SUBSCRIBE, "ZMQ_SUBSCRIBE", bytes: prefix)
    }

    /// `ZMQ_SUBSCRIBE` with a UTF-8 prefix; `""` subscribes to everything.
    package func subscribe(_ prefix: String) throws(ZMQError) { try subscribe(Array(prefix.utf8)) }

    /// `ZMQ_UNSUBSCRIBE`: removes one earlier ``subscribe(_:)-([UInt8])`` of the same prefix.
    package func unsubscribe(_ prefix: [UInt8]) throws(ZMQError) {
        try setOption(ZMQ_UNSUBSCRIBE, "ZMQ_UNSUBSCRIBE", bytes: prefix)
    }

    /// `ZMQ_UNSUBSCRIBE` with a UTF-8 prefix.
    package func unsubscribe(_ prefix: String) throws(ZMQError) { try unsubscribe(Array(prefix.utf8)) }

    /// `ZMQ_ROUTER_MANDATORY`: a ROUTER send to an unknown routing id throws `EHOSTUNREACH` instead of
    /// silently dropping the reply.
    package func setRouterMandatory(_ enabled: Bool) throws(ZMQError) {
        try setOption(ZMQ_ROUTER_MANDATORY, "ZMQ_ROUTER_MANDATORY", Int32(enabled ? 1 : 0))
    }

    /// `ZMQ_ROUTING_ID` (alias `ZMQ_IDENTITY`): the id a ROUTER peer sees for this socket, 1...255 bytes,
    /// not starting with a zero byte. Set it before connecting.
    package func setRoutingID(_ id: [UInt8]) throws(ZMQError) {
        try setOption(ZMQ_ROUTING_ID, "ZMQ_ROUTING_ID", bytes: id)
    }

    /// `ZMQ_ROUTING_ID` as set; empty if none was.
    package var routingID: [UInt8] {
        get throws(ZMQError) { try bytesOption(ZMQ_ROUTING_ID, "ZMQ_ROUTING_ID", capacity: 255) }
    }

    // MARK: Transport

    /// `ZMQ_IPV6`: lets tcp endpoints use IPv6 as well as IPv4.
    package func setIPv6(_ enabled: Bool) throws(ZMQError) {
        try setOption(ZMQ_IPV6, "ZMQ_IPV6", Int32(enabled ? 1 : 0))
    }

    /// `ZMQ_TCP_KEEPALIVE` (with `_IDLE`, `_INTVL`, `_CNT` when given), so that a peer that vanished
    /// without closing its connection is noticed. `nil` for the times or count keeps the OS defaults.
    package func setTCPKeepalive(
        _ enabled: Bool, idle: Duration? = nil, interval: Duration? = nil, count: Int? = nil
    ) throws(ZMQError) {
        try setOption(ZMQ_TCP_KEEPALIVE, "ZMQ_TCP_KEEPALIVE", Int32(enabled ? 1 : 0))
        if let idle { try setOption(ZMQ_TCP_KEEPALIVE_IDLE, "ZMQ_TCP_KEEPALIVE_IDLE", ZMQ.seconds(idle)) }
        if let interval {
            try setOption(ZMQ_TCP_KEEPALIVE_INTVL, "ZMQ_TCP_KEEPALIVE_INTVL", ZMQ.seconds(interval))
        }
        if let count { try setOption(ZMQ_TCP_KEEPALIVE_CNT, "ZMQ_TCP_KEEPALIVE_CNT", Int32(clamping: count)) }
    }

    /// `ZMQ_LAST_ENDPOINT`: the endpoint last bound, with a wildcard port resolved (`tcp://127.0.0.1:41234`).
    package var lastEndpoint: String {
        get throws(ZMQError) {
            let bytes = try bytesOption(ZMQ_LAST_ENDPOINT, "ZMQ_LAST_ENDPOINT", capacity: 1024)
            return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    // MARK: Integration with poll(2)

    /// `ZMQ_FD`: a file descriptor that becomes readable when the socket's ``events`` *may* have changed.
    ///
    /// It is edge-triggered and is not the data socket: after it wakes, read ``events`` and drain the
    /// socket with `dontWait` receives until they return `nil`, or a wake-up can be lost.
    package var fd: Int32 {
        get throws(ZMQError) { try intOption(ZMQ_FD, "ZMQ_FD") }
    }

    /// `ZMQ_EVENTS`: whether a message can be received, or sent, without blocking right now.
    package var events: ZMQEvents {
        get throws(ZMQError) { ZMQEvents(rawValue: Int16(truncatingIfNeeded: try intOption(ZMQ_EVENTS, "ZMQ_EVENTS"))) }
    }

    /// `ZMQ_RCVMORE`: whether the frame last received by ``receive(dontWait:)`` has more parts after it.
    package var hasMore: Bool {
        get throws(ZMQError) { try intOption(ZMQ_RCVMORE, "ZMQ_RCVMORE") != 0 }
    }

    // MARK: Raw access

    func setOption(_ option: Int32, _ name: String, _ value: Int32) throws(ZMQError) {
        let socket = try open("zmq_setsockopt(\(name))")
        var value = value
        try ZMQ.check("zmq_setsockopt(\(name))") {
            zmq_setsockopt(socket, option, &value, MemoryLayout<Int32>.size)
        }
    }

    func setOption(_ option: Int32, _ name: String, _ value: Int64) throws(ZMQError) {
        let socket = try open("zmq_setsockopt(\(name))")
        var value = value
        try ZMQ.check("zmq_setsockopt(\(name))") {
            zmq_setsockopt(socket, option, &value, MemoryLayout<Int64>.size)
        }
    }

    func setOption(_ option: Int32, _ name: String, bytes: [UInt8]) throws(ZMQError) {
        let socket = try open("zmq_setsockopt(\(name))")
        try ZMQ.check("zmq_setsockopt(\(name))") {
            bytes.withUnsafeBytes { zmq_setsockopt(socket, option, $0.baseAddress, $0.count) }
        }
    }

    func intOption(_ option: Int32, _ name: String) throws(ZMQError) -> Int32 {
        let socket = try open("zmq_getsockopt(\(name))")
        var value: Int32 = 0
        var size = MemoryLayout<Int32>.size
        try ZMQ.check("zmq_getsockopt(\(name))") { zmq_getsockopt(socket, option, &value, &size) }
        return value
    }

    func bytesOption(_ option: Int32, _ name: String, capacity: Int) throws(ZMQError) -> [UInt8] {
        let socket = try open("zmq_getsockopt(\(name))")
        var size = capacity
        var bytes = [UInt8](repeating: 0, count: capacity)
        try ZMQ.check("zmq_getsockopt(\(name))") {
            bytes.withUnsafeMutableBytes { zmq_getsockopt(socket, option, $0.baseAddress, &size) }
        }
        return Array(bytes.prefix(size))
    }
}
