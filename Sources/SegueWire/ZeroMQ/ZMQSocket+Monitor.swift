import CZeroMQ

/// Socket monitoring (`zmq_socket_monitor`): connection events published on an inproc PAIR socket.
///
/// Used to log connections and failed handshakes, and by tests to wait for an event (a disconnect, a
/// rejected CURVE handshake) instead of sleeping.
extension ZMQSocket {
    /// Publishes this socket's `events` to a PAIR socket that connects to `endpoint` (an `inproc://` name).
    /// Read them with ``ZMQMonitorEvent/init(frames:)``.
    package func monitor(_ endpoint: String, events: ZMQMonitorEvent.Kind = .all) throws(ZMQError) {
        let socket = try open("zmq_socket_monitor")
        try ZMQ.check("zmq_socket_monitor(\(endpoint))") {
            zmq_socket_monitor(socket, endpoint, Int32(events.rawValue))
        }
    }

    /// Stops monitoring; the monitor PAIR receives `monitorStopped`.
    package func stopMonitor() throws(ZMQError) {
        let socket = try open("zmq_socket_monitor")
        try ZMQ.check("zmq_socket_monitor") { zmq_socket_monitor(socket, nil, 0) }
    }
}

/// One event from a socket monitor: two frames, `(UInt16 event, UInt32 value)` in host byte order, then
/// the endpoint (zmq_socket_monitor(3)).
package struct ZMQMonitorEvent: Hashable, Sendable {
    /// The event, or the set of events to monitor.
    package struct Kind: OptionSet, Hashable, Sendable {
        package let rawValue: UInt16
        package init(rawValue: UInt16) { self.rawValue = rawValue }

        package static let connected = Kind(rawValue: UInt16(ZMQ_EVENT_CONNECTED))
        package static let connectDelayed = Kind(rawValue: UInt16(ZMQ_EVENT_CONNECT_DELAYED))
        package static let connectRetried = Kind(rawValue: UInt16(ZMQ_EVENT_CONNECT_RETRIED))
        package static let listening = Kind(rawValue: UInt16(ZMQ_EVENT_LISTENING))
        package static let bindFailed = Kind(rawValue: UInt16(ZMQ_EVENT_BIND_FAILED))
        package static let accepted = Kind(rawValue: UInt16(ZMQ_EVENT_ACCEPTED))
        package static let acceptFailed = Kind(rawValue: UInt16(ZMQ_EVENT_ACCEPT_FAILED))
        package static let closed = Kind(rawValue: UInt16(ZMQ_EVENT_CLOSED))
        package static let closeFailed = Kind(rawValue: UInt16(ZMQ_EVENT_CLOSE_FAILED))
        package static let disconnected = Kind(rawValue: UInt16(ZMQ_EVENT_DISCONNECTED))
        package static let monitorStopped = Kind(rawValue: UInt16(ZMQ_EVENT_MONITOR_STOPPED))
        /// A handshake failed before the mechanism could say why (e.g. the peer vanished).
        package static let handshakeFailedNoDetail = Kind(rawValue: UInt16(ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL))
        package static let handshakeSucceeded = Kind(rawValue: UInt16(ZMQ_EVENT_HANDSHAKE_SUCCEEDED))
        /// The peer broke the ZMTP or mechanism protocol (a CURVE box that does not decrypt lands here).
        package static let handshakeFailedProtocol = Kind(rawValue: UInt16(ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL))
        /// ZAP refused the peer.
        package static let handshakeFailedAuth = Kind(rawValue: UInt16(ZMQ_EVENT_HANDSHAKE_FAILED_AUTH))

        /// Every handshake failure.
        package static let handshakeFailed: Kind = [
            .handshakeFailedNoDetail, .handshakeFailedProtocol, .handshakeFailedAuth,
        ]
        package static let all = Kind(rawValue: UInt16(ZMQ_EVENT_ALL))
    }

    package let kind: Kind
    /// The event's value: an fd, an errno, a retry interval or a handshake error code, depending on `kind`.
    package let value: UInt32
    package let endpoint: String

    /// Parses the two frames of a monitor message; `nil` if they are not one.
    package init?(frames: [[UInt8]]) {
        guard frames.count == 2, frames[0].count == 6 else { return nil }
        let header = frames[0]
        kind = Kind(rawValue: header.withUnsafeBytes { $0.loadUnaligned(as: UInt16.self) })
        value = header.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 2, as: UInt32.self) }
        endpoint = String(decoding: frames[1], as: UTF8.self)
    }

    /// A `handshakeFailedProtocol` whose value is `ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH`: the peer's
    /// greeting names another security mechanism (CURVE against NULL, or the reverse), so no key can help.
    package var isMechanismMismatch: Bool {
        kind == .handshakeFailedProtocol && value == UInt32(ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH)
    }
}
