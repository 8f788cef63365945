import CZeroMQ

/// libzmq's built-in forwarding device, `zmq_proxy_steerable` (zmq_proxy(3)), and its STATISTICS reply.
///
/// "The proxy connects a frontend socket to a backend socket. Conceptually, data flows from frontend to
/// backend. Depending on the socket types, replies may flow in the opposite direction." With an XSUB
/// frontend and an XPUB backend that is a publish/subscribe forwarder: publications flow down, and the
/// subscriptions of the subscribers below flow up, so only what someone subscribed to is forwarded.
///
/// The control socket takes `PAUSE`, `RESUME`, `TERMINATE` and `STATISTICS`. libzmq 4.3 asserts (aborts
/// the process) on any other message, and replies only to `STATISTICS`, so never expose the control
/// socket itself: keep it an inproc `PAIR` whose other end the application drives.
package enum ZMQProxy {
    /// Runs the proxy on the calling thread until `TERMINATE` arrives on `control`.
    ///
    /// The sockets belong to this thread until it returns; nothing else may use them meanwhile.
    /// - Throws: `ETERM` when the sockets' context is terminated (the other way to stop it).
    package static func run(frontend: ZMQSocket, backend: ZMQSocket, control: ZMQSocket?) throws(ZMQError) {
        let front = try frontend.open("zmq_proxy_steerable")
        let back = try backend.open("zmq_proxy_steerable")
        let steer = try control?.open("zmq_proxy_steerable")
        try ZMQ.check("zmq_proxy_steerable") { zmq_proxy_steerable(front, back, nil, steer) }
    }

    /// The reply to `STATISTICS`: message and byte counts of each side since the proxy started.
    package struct Statistics: Equatable, Sendable {
        package var frontend: Side
        package var backend: Side

        package init(frontend: Side, backend: Side) {
            self.frontend = frontend
            self.backend = backend
        }

        /// One socket's counters, as the proxy keeps them: what it received on it and what it sent on it.
        package struct Side: Equatable, Sendable {
            package var messagesIn: UInt64
            package var bytesIn: UInt64
            package var messagesOut: UInt64
            package var bytesOut: UInt64

            package init(messagesIn: UInt64, bytesIn: UInt64, messagesOut: UInt64, bytesOut: UInt64) {
                self.messagesIn = messagesIn
                self.bytesIn = bytesIn
                self.messagesOut = messagesOut
                self.bytesOut = bytesOut
            }
        }

        /// Reads the reply: eight frames of one `uint64_t` each (host byte order), frontend's four
        /// (messages in, bytes in, messages out, bytes out), then backend's.
        package init(frames: [[UInt8]]) throws(ZMQError) {
            guard frames.count == 8, frames.allSatisfy({ $0.count == 8 }) else {
                throw ZMQError(
                    code: .invalidArgument, call: "zmq_proxy_steerable STATISTICS",
                    message: "A STATISTICS reply is 8 frames of 8 bytes; got \(frames.map(\.count)).")
            }
            let values = frames.map { frame in frame.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) } }
            frontend = Side(messagesIn: values[0], bytesIn: values[1], messagesOut: values[2], bytesOut: values[3])
            backend = Side(messagesIn: values[4], bytesIn: values[5], messagesOut: values[6], bytesOut: values[7])
        }

        /// The reply's frames, as the proxy sends them.
        package var frames: [[UInt8]] {
            [frontend, backend].flatMap { side in
                [side.messagesIn, side.bytesIn, side.messagesOut, side.bytesOut].map { value in
                    withUnsafeBytes(of: value) { Array($0) }
                }
            }
        }
    }
}
