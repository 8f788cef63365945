import CZeroMQ

/// An error from libzmq: the `errno` it reported, libzmq's own text for it, and the call that failed.
///
/// The number is kept, not just the text, because callers must tell the cases apart: `ETERM` means the
/// context is shutting down and the owner should close the socket and leave its loop, `EHOSTUNREACH` means a
/// ROUTER with `ZMQ_ROUTER_MANDATORY` was asked to reply to a peer that has gone, `EFSM` means a REQ/REP
/// socket was used out of turn. `EAGAIN` is normally not thrown at all: the wrapper turns it into a `nil` or
/// `false` result, since "no message yet" is an ordinary outcome of a non-blocking call. `EINTR` is retried
/// by ``ZMQ/call(_:_:)`` and never reaches callers.
public struct ZMQError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The `errno` value libzmq reported (POSIX or one of libzmq's `ZMQ_HAUSNUMERO` based numbers).
    public let code: Code
    /// `zmq_strerror(code)`, captured when the error was made.
    public let message: String
    /// The libzmq function that failed, e.g. `zmq_bind`, so a log line says what was being attempted.
    public let call: String

    public init(code: Code, call: String, message: String? = nil) {
        self.code = code
        self.call = call
        self.message = message ?? String(cString: zmq_strerror(code.rawValue))
    }

    /// Reads `zmq_errno()` right after a failed call; it must be the first thing done after the failure.
    static func last(_ call: String) -> ZMQError {
        ZMQError(code: Code(rawValue: zmq_errno()), call: call)
    }

    /// True when the socket's context was terminated (`ETERM`): close the socket and stop using it.
    public var isTerminated: Bool { code == .terminated }

    public var description: String { "\(call) failed: \(message) (errno \(code.rawValue))" }

    /// A libzmq `errno` value, with names for the ones callers act on.
    public struct Code: RawRepresentable, Hashable, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// `EAGAIN`: a non-blocking call would block, or a send/receive timeout elapsed.
        public static let wouldBlock = Code(rawValue: SEGUE_ZMQ_EAGAIN)
        /// `EINTR`: a signal interrupted a blocking call.
        public static let interrupted = Code(rawValue: SEGUE_ZMQ_EINTR)
        /// `EINVAL`: a bad argument, endpoint or key.
        public static let invalidArgument = Code(rawValue: SEGUE_ZMQ_EINVAL)
        /// `ENOTSUP`: the operation or option is not supported (e.g. CURVE in a build without libsodium).
        public static let notSupported = Code(rawValue: SEGUE_ZMQ_ENOTSUP)
        /// `EPROTONOSUPPORT`: the endpoint names a transport libzmq does not know.
        public static let protocolNotSupported = Code(rawValue: SEGUE_ZMQ_EPROTONOSUPPORT)
        /// `ENOTSOCK`: the socket was already closed.
        public static let notSocket = Code(rawValue: SEGUE_ZMQ_ENOTSOCK)
        /// `EHOSTUNREACH`: a ROUTER with `ZMQ_ROUTER_MANDATORY` has no peer with that routing id.
        public static let hostUnreachable = Code(rawValue: SEGUE_ZMQ_EHOSTUNREACH)
        /// `EMSGSIZE`: a message is too large for the transport.
        public static let messageTooLarge = Code(rawValue: SEGUE_ZMQ_EMSGSIZE)
        /// `EADDRINUSE`: another socket already listens on the endpoint.
        public static let addressInUse = Code(rawValue: SEGUE_ZMQ_EADDRINUSE)
        /// `EFSM`: the socket's state machine forbids the call now (a REQ that sends twice).
        public static let wrongState = Code(rawValue: SEGUE_ZMQ_EFSM)
        /// `ENOCOMPATPROTO`: the transport does not fit the socket type.
        public static let incompatibleProtocol = Code(rawValue: SEGUE_ZMQ_ENOCOMPATPROTO)
        /// `ETERM`: the context was terminated.
        public static let terminated = Code(rawValue: SEGUE_ZMQ_ETERM)
        /// `EMTHREAD`: no I/O thread is available.
        public static let noIOThread = Code(rawValue: SEGUE_ZMQ_EMTHREAD)
    }
}
