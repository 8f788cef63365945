import CZeroMQ
import Glibc

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

/// Waits on several sockets, and plain file descriptors, at once: `zmq_poll`'s contract, with fewer
/// system calls.
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
///
/// Each look at a socket's readiness (`ZMQ_EVENTS`) makes libzmq check its command mailbox, two
/// system calls (`getpid` and a zero-timeout `poll`) even when it is empty. `zmq_poll` looks at every
/// socket before and after it sleeps and polls once more before it looks; this poller looks once
/// before sleeping, and after waking only at the sockets whose descriptor fired: a socket whose
/// commands were all processed and that had nothing to read can only change when libzmq signals its
/// descriptor. A ``Readiness/signalled`` socket is not looked at at all.
package struct ZMQPoller {
    /// How the poller learns that a socket is ready.
    package enum Readiness: Sendable {
        /// Exactly, as `zmq_poll` reports it (`ZMQ_EVENTS`).
        case exact
        /// Reported `.readable` whenever libzmq signals its descriptor (it has commands to process,
        /// perhaps a message), without looking: for a socket the caller then reads until `EAGAIN`,
        /// where a late or spurious report costs little. A send on the socket may process its
        /// commands and take the signal with it, so the caller also reads it now and then unasked.
        case signalled
    }

    fileprivate enum Target {
        case socket(ZMQSocket, Readiness)
        case fd(Int32)
    }

    private var targets: [(target: Target, events: ZMQEvents)] = []
    /// The arrays of the last poll, reused: allocating an array of a type of ours looks its storage
    /// class up in the Swift runtime's metadata tables every time, on every wake of the daemon's loop.
    private let buffers = PollBuffers()

    package init() {}

    /// The number of items, which is also the index the next ``add(_:events:)`` returns.
    package var count: Int { targets.count }

    /// Adds a socket and returns its index in the result of ``poll(timeout:)``.
    @discardableResult
    package mutating func add(_ socket: ZMQSocket, events: ZMQEvents = .readable, readiness: Readiness = .exact)
        -> Int
    {
        targets.append((.socket(socket, readiness), events))
        return targets.count - 1
    }

    /// Changes what the item at `index` is polled for; with none, the poll does not report it, nor
    /// end a wait for it (a socket whose messages the caller leaves unread a while would otherwise
    /// make every poll return at once). For an exact socket only: a signalled one's descriptor,
    /// still polled, would make the wait spin to its deadline.
    package mutating func setEvents(_ events: ZMQEvents, at index: Int) {
        targets[index].events = events
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
    ///   A signal does not end the wait early: the wait goes on for what is left of the timeout.
    /// - Throws: `ETERM` once the sockets' context is terminated, `ENOTSOCK` if a socket was closed.
    package func poll(timeout: Duration?) throws(ZMQError) -> [ZMQEvents] {
        var ready: [ZMQEvents] = []
        var descriptors: [pollfd] = []
        // Moved out, so that each is uniquely referenced (unless a caller still holds the last result).
        swap(&ready, &buffers.ready)
        swap(&descriptors, &buffers.descriptors)
        defer {
            buffers.ready = ready
            buffers.descriptors = descriptors
        }
        ready.removeAll(keepingCapacity: true)
        for _ in targets.indices { ready.append([]) }
        var anyReady = false
        // The sockets' descriptors first: a closed socket or a terminated context fails here, as in zmq_poll.
        descriptors.removeAll(keepingCapacity: true)
        for (target, events) in targets {
            switch target {
            case .socket(let socket, _):
                descriptors.append(pollfd(fd: try socket.pollDescriptor(), events: Int16(POLLIN), revents: 0))
            case .fd(let fd):
                descriptors.append(pollfd(fd: fd, events: Self.pollEvents(events), revents: 0))
            }
        }
        for (index, (target, events)) in targets.enumerated() {
            guard case .socket(let socket, .exact) = target else { continue }
            ready[index] = try socket.pollEvents().intersection(events)
            if !ready[index].isEmpty {
                anyReady = true
                // Known ready: its descriptor needs no look after the wait.
                descriptors[index].fd = -1
            }
        }
        // A socket is ready: only plain descriptors and signalled sockets are left to look at, at once.
        if anyReady, !targets.contains(where: { $0.target.waitsWithoutLooking }) { return ready }
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while true {
            let milliseconds = anyReady ? 0 : ZMQ.milliseconds(deadline.map { ContinuousClock.now.duration(to: $0) })
            let count = Glibc.poll(&descriptors, nfds_t(descriptors.count), milliseconds)
            if count < 0 {
                guard errno == EINTR else { throw ZMQError(code: .init(rawValue: errno), call: "zmq_poll") }
                continue
            }
            for index in descriptors.indices where descriptors[index].revents != 0 {
                let fired = descriptors[index].revents
                descriptors[index].revents = 0
                switch targets[index].target {
                case .socket(let socket, .exact):
                    ready[index] = try socket.pollEvents().intersection(targets[index].events)
                case .socket(_, .signalled):
                    ready[index] = targets[index].events.intersection(.readable)
                case .fd:
                    ready[index] = Self.zmqEvents(fired).intersection(targets[index].events.union(.error))
                }
                anyReady = anyReady || !ready[index].isEmpty
            }
            // An exact socket's descriptor may fire for commands that leave it unready: wait out the rest.
            if anyReady || milliseconds == 0 { return ready }
        }
    }

    private static func pollEvents(_ events: ZMQEvents) -> Int16 {
        (events.contains(.readable) ? Int16(POLLIN) : 0) | (events.contains(.writable) ? Int16(POLLOUT) : 0)
    }

    /// `poll`'s result for a plain descriptor in libzmq's terms, as zmq_poll maps it.
    private static func zmqEvents(_ revents: Int16) -> ZMQEvents {
        var events: ZMQEvents = []
        if revents & Int16(POLLIN) != 0 { events.insert(.readable) }
        if revents & Int16(POLLOUT) != 0 { events.insert(.writable) }
        if revents & ~Int16(POLLIN | POLLOUT | POLLPRI) != 0 { events.insert(.error) }
        return events
    }
}

extension ZMQPoller.Target {
    /// Plain descriptors and signalled sockets are only known by polling them.
    fileprivate var waitsWithoutLooking: Bool {
        if case .socket(_, .exact) = self { return false }
        return true
    }
}

extension ZMQSocket {
    /// `ZMQ_FD`, named as a failure of the poll.
    fileprivate func pollDescriptor() throws(ZMQError) -> Int32 {
        let socket = try open("zmq_poll")
        var value: Int32 = 0
        var size = MemoryLayout<Int32>.size
        try ZMQ.check("zmq_poll") { zmq_getsockopt(socket, ZMQ_FD, &value, &size) }
        return value
    }

    /// `ZMQ_EVENTS` (which processes the socket's commands), named as a failure of the poll.
    fileprivate func pollEvents() throws(ZMQError) -> ZMQEvents {
        let socket = try open("zmq_poll")
        var value: Int32 = 0
        var size = MemoryLayout<Int32>.size
        try ZMQ.check("zmq_poll") { zmq_getsockopt(socket, ZMQ_EVENTS, &value, &size) }
        return ZMQEvents(rawValue: Int16(truncatingIfNeeded: value))
    }
}

/// `ZMQPoller`'s reused arrays; a poller belongs to one thread, and so do they.
private final class PollBuffers {
    var ready: [ZMQEvents] = []
    var descriptors: [pollfd] = []
}
