import SegueWire

/// The peers connected to a publishing socket, for `stats.subscribers`: each connection counts from
/// its accept to its disconnect, read from libzmq's socket monitor, whose two events name the
/// connection's descriptor (a completed handshake names none). A CURVE client that ZAP refuses counts
/// until libzmq drops it, moments later. XPUB itself reports topics, not peers: two subscribers of one
/// topic are one subscription there.
final class SubscriberPeers {
    /// The monitor's end: signalled when a peer comes or goes.
    let events: ZMQSocket
    /// The descriptors of the connections accepted and not yet gone.
    private var connected: Set<UInt32> = []

    var count: Int { connected.count }

    /// - Parameter name: an `inproc://` name unique within the socket's context.
    init(_ socket: ZMQSocket, name: String) throws(ZMQError) {
        try socket.monitor(name, events: [.accepted, .disconnected])
        events = try ZMQSocket(socket.context, .pair)
        try events.setLinger(.zero)
        try events.connect(name)
    }

    /// Reads the events queued so far; returns whether the count changed.
    func drain() -> Bool {
        let before = connected.count
        while let frames = try? events.receiveMultipart(dontWait: true) {
            guard let event = ZMQMonitorEvent(frames: frames) else { continue }
            if event.kind == .accepted {
                connected.insert(event.value)
            } else if event.kind == .disconnected {
                connected.remove(event.value)
            }
        }
        return connected.count != before
    }

    /// Closes the monitor's end (before the context is terminated, which waits for every socket).
    func close() { events.close() }
}
