import CZeroMQ

/// What a poll item waits for, or what it is ready for (`ZMQ_POLLIN`, `ZMQ_POLLOUT`, `ZMQ_POLLERR`).
package struct ZMQEvents: OptionSet, Hashable, Sendable {
    package let rawValue: Int16
    package init(rawValue: Int16) { self.rawValue = rawValue }

    /// A message can be received (for an fd: it is readable).
    package static let readable = ZMQEvents(rawValue: Int16(ZMQ_POLLIN))
    /// A message can be sent without blocking (for an fd: it is writable).
    package static let writable = ZMQEvents(rawValue: Int16(ZMQ_POLLOUT))
    /// An error condition on a plain fd; libzmq never reports it for its own sockets.
    package static let error = ZMQEvents(rawValue: Int16(ZMQ_POLLERR))
}

/// Waits on several sockets, and plain file descriptors, at once (`zmq_poll`).
///
/// A daemon loop typically polls its command ROUTER, a ZAP REP and an eventfd or pipe that other threads
/// write to in order to wake it (ZeroMQ sockets cannot be woken from another thread any other way).
/// The poller keeps its sockets alive and, like them, belongs to one thread.
///
/// ```swift
/// var poller = ZMQPoller()
/// let commands = poller.add(router)
/// let wake = poller.add(fd: wakeFD)
/// let ready = try poller.poll(timeout: .milliseconds(100))
/// if ready[commands].contains(.readable) { ... }
/// ```
package struct ZMQPoller {
    private enum Target {
        case socket(ZMQSocket)
        case fd(Int32)
    }

    private var targets: [(target: Target, events: ZMQEvents)] = []

    package init() {}

    /// The number of items, which is also the index the next ``add(_:events:)`` returns.
    package var count: Int { targets.count }

    /// Adds a socket and returns its index in the result of ``poll(timeout:)``.
    @discardableResult
    package mutating func add(_ socket: ZMQSocket, events: ZMQEvents = .readable) -> Int {
        targets.append((.socket(socket), events))
        return targets.count - 1
    }

    /// Adds a plain file descriptor (an eventfd, a pipe's read end, a signalfd) and returns its index.
    @discardableResult
    package mutating func add(fd: Int32, events: ZMQEvents = .readable) -> Int {
        targets.append((.fd(fd), events))
        return targets.count - 1
    }

    /// Waits until at least one item is ready or `timeout` passes (`nil`: wait forever; `.zero`: just look).
    ///
    /// - Returns: the readiness of every item, in the order they were added; all empty after a timeout.
    ///   A signal does not end the wait early: ``ZMQ/call(_:_:)`` retries `EINTR` with the full timeout.
    /// - Throws: `ETERM` once the sockets' context is terminated, `ENOTSOCK` if a socket was closed.
    package func poll(timeout: Duration?) throws(ZMQError) -> [ZMQEvents] {
        var items: [zmq_pollitem_t] = []
        items.reserveCapacity(targets.count)
        for (target, events) in targets {
            switch target {
            case .socket(let socket):
                let handle = try socket.open("zmq_poll")
                items.append(zmq_pollitem_t(socket: handle, fd: -1, events: events.rawValue, revents: 0))
            case .fd(let fd):
                items.append(zmq_pollitem_t(socket: nil, fd: fd, events: events.rawValue, revents: 0))
            }
        }
        let milliseconds = Int(ZMQ.milliseconds(timeout))
        let count = Int32(items.count)
        try ZMQ.check("zmq_poll") { zmq_poll(&items, count, milliseconds) }
        return items.map { ZMQEvents(rawValue: $0.revents) }
    }
}
