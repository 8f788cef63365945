import CZeroMQ

/// One libzmq socket, owned by one thread at a time.
///
/// libzmq sockets are not thread safe ("Do not use or close sockets except in the thread that created
/// them", zmq(7)), so `ZMQSocket` is not `Sendable`. To hand a socket to the thread that will own it,
/// wrap it in a ``ZMQSocketTransfer`` once and never touch it again on the sending side.
///
/// The socket keeps its ``context`` alive and closes itself in `deinit`, so the context's `zmq_ctx_term`
/// cannot run while it is open (see ``ZMQContext``'s shutdown order). It starts with the context's
/// ``ZMQContext/socketLinger``.
///
/// Receiving always goes through a `zmq_msg_t` sized by libzmq, so a frame of any length arrives whole.
/// `EAGAIN` (nothing to receive without blocking, a receive timeout, a full queue on send) is a `nil` or
/// `false` result; other failures throw ``ZMQError``.
package final class ZMQSocket {
    /// The libzmq socket types SegueWire uses (the stable, non-draft ones).
    package enum Kind: Sendable, CaseIterable, Hashable {
        case pair, pub, sub, req, rep, dealer, router, pull, push, xpub, xsub

        var rawValue: Int32 {
            switch self {
            case .pair: ZMQ_PAIR
            case .pub: ZMQ_PUB
            case .sub: ZMQ_SUB
            case .req: ZMQ_REQ
            case .rep: ZMQ_REP
            case .dealer: ZMQ_DEALER
            case .router: ZMQ_ROUTER
            case .pull: ZMQ_PULL
            case .push: ZMQ_PUSH
            case .xpub: ZMQ_XPUB
            case .xsub: ZMQ_XSUB
            }
        }
    }

    package let kind: Kind
    package let context: ZMQContext
    private var handle: UnsafeMutableRawPointer?
    /// One `zmq_msg_t` reused by every receive: heap-allocated so its address (which libzmq may point into
    /// for small messages) never moves, and reused because one thread receives at a time.
    private let message: UnsafeMutablePointer<zmq_msg_t>

    /// Creates a socket of `kind` in `context` with the context's linger.
    package init(_ context: ZMQContext, _ kind: Kind) throws(ZMQError) {
        guard let handle = zmq_socket(context.handle, kind.rawValue) else { throw ZMQError.last("zmq_socket") }
        self.kind = kind
        self.context = context
        self.handle = handle
        self.message = .allocate(capacity: 1)
        try setLinger(context.socketLinger)
    }

    deinit {
        close()
        message.deallocate()
    }

    /// Closes the socket now; later calls throw `ENOTSOCK`. Unsent messages linger per `ZMQ_LINGER`.
    package func close() {
        guard let handle else { return }
        self.handle = nil
        // zmq_close fails only with ENOTSOCK, which an open handle never is.
        _ = zmq_close(handle)
    }

    /// Whether ``close()`` has been called.
    package var isClosed: Bool { handle == nil }

    /// The open handle, or `ENOTSOCK` named after `call` if the socket was closed.
    ///
    /// After ``ZMQContext/terminate()`` it throws `ETERM` itself: libzmq notices the shutdown only when the
    /// socket next processes its command queue, which a non-blocking send may skip for up to a millisecond,
    /// and "every later call fails with ETERM" should not depend on that.
    func open(_ call: String) throws(ZMQError) -> UnsafeMutableRawPointer {
        guard let handle else { throw ZMQError(code: .notSocket, call: call) }
        if context.isTerminated { throw ZMQError(code: .terminated, call: call) }
        return handle
    }

    // MARK: Endpoints

    /// Binds to an endpoint such as `tcp://127.0.0.1:*` (a free port; read it back from ``lastEndpoint``),
    /// `ipc:///run/segue/cmd` or `inproc://name`.
    package func bind(_ endpoint: String) throws(ZMQError) {
        let socket = try open("zmq_bind")
        try enableIPv6IfNamed(endpoint)
        try ZMQ.check("zmq_bind(\(endpoint))") { zmq_bind(socket, endpoint) }
    }

    /// Connects to an endpoint; libzmq connects (and reconnects) in the background.
    package func connect(_ endpoint: String) throws(ZMQError) {
        let socket = try open("zmq_connect")
        try enableIPv6IfNamed(endpoint)
        try ZMQ.check("zmq_connect(\(endpoint))") { zmq_connect(socket, endpoint) }
    }

    /// libzmq leaves IPv6 off unless asked (`ZMQ_IPV6`), and then refuses `tcp://[::1]:7400` with
    /// `ENODEV`. It is turned on for a bracketed IPv6 host only: on for every endpoint, a name such
    /// as `localhost` could resolve to `::1` and miss a peer listening on 127.0.0.1.
    private func enableIPv6IfNamed(_ endpoint: String) throws(ZMQError) {
        if endpoint.hasPrefix("tcp://[") { try setIPv6(true) }
    }

    /// Stops listening on an endpoint given to ``bind(_:)`` (for a wildcard, pass ``lastEndpoint``).
    package func unbind(_ endpoint: String) throws(ZMQError) {
        let socket = try open("zmq_unbind")
        try ZMQ.check("zmq_unbind(\(endpoint))") { zmq_unbind(socket, endpoint) }
    }

    /// Drops a connection made by ``connect(_:)``.
    package func disconnect(_ endpoint: String) throws(ZMQError) {
        let socket = try open("zmq_disconnect")
        try ZMQ.check("zmq_disconnect(\(endpoint))") { zmq_disconnect(socket, endpoint) }
    }

    // MARK: Sending

    /// Sends one frame; `more` marks it as a part of a multipart message with more parts to follow.
    ///
    /// libzmq copies the bytes (from the array's own storage, no intermediate copy) before returning.
    /// - Returns: `false` if the frame could not be queued without blocking (`EAGAIN`: `dontWait` with a
    ///   full queue or no peer, or `ZMQ_SNDTIMEO` elapsed); the frame was not sent.
    @discardableResult
    package func send(_ bytes: some Collection<UInt8>, more: Bool = false, dontWait: Bool = false) throws(ZMQError)
        -> Bool
    {
        let socket = try open("zmq_send")
        let flags = (more ? ZMQ_SNDMORE : 0) | (dontWait ? ZMQ_DONTWAIT : 0)
        func send(_ buffer: UnsafeBufferPointer<UInt8>) -> Result<Int32?, ZMQError> {
            Result { () throws(ZMQError) -> Int32? in
                try ZMQ.call("zmq_send") { zmq_send(socket, buffer.baseAddress, buffer.count, flags) }
            }
        }
        let result = bytes.withContiguousStorageIfAvailable(send) ?? Array(bytes).withUnsafeBufferPointer(send)
        return try result.get() != nil
    }

    /// Sends a UTF-8 string as one frame; see ``send(_:more:dontWait:)``.
    @discardableResult
    package func send(_ text: String, more: Bool = false, dontWait: Bool = false) throws(ZMQError) -> Bool {
        try send(Array(text.utf8), more: more, dontWait: dontWait)
    }

    /// Sends a whole multipart message (for a ROUTER: routing id first, then the body frames).
    ///
    /// Only the first frame is sent with `dontWait`: once libzmq has accepted it, the rest of the message
    /// goes to the same pipe and is never refused, and waiting for it keeps a half-sent message impossible.
    /// - Precondition: `frames` is not empty.
    /// - Returns: `false` if the first frame could not be queued without blocking; nothing was sent.
    @discardableResult
    package func sendMultipart(_ frames: [[UInt8]], dontWait: Bool = false) throws(ZMQError) -> Bool {
        precondition(!frames.isEmpty, "A ZeroMQ message has at least one frame.")
        let last = frames.count - 1
        guard try send(frames[0], more: last > 0, dontWait: dontWait) else { return false }
        for index in frames.indices.dropFirst() {
            guard try send(frames[index], more: index < last) else {
                throw ZMQError(code: .wouldBlock, call: "zmq_send (frame \(index + 1) of \(frames.count))")
            }
        }
        return true
    }

    // MARK: Receiving

    /// Receives one frame, of any size.
    ///
    /// Use ``receiveMultipart(dontWait:)`` for whole messages; after this call ``hasMore`` says whether the
    /// frame was followed by more parts of the same message.
    /// - Returns: the frame, or `nil` if none arrived without blocking (`dontWait`, or `ZMQ_RCVTIMEO`).
    package func receive(dontWait: Bool = false) throws(ZMQError) -> [UInt8]? {
        try receiveFrame(flags: dontWait ? ZMQ_DONTWAIT : 0, metadata: [])?.bytes
    }

    /// Receives every frame of the next message (libzmq delivers messages whole, so the later frames are
    /// already there once the first one is).
    /// - Returns: the non-empty frame list, or `nil` if no message arrived without blocking.
    package func receiveMultipart(dontWait: Bool = false) throws(ZMQError) -> [[UInt8]]? {
        try receiveMessage(dontWait: dontWait, metadata: [])?.frames
    }

    /// Receives the next message with the connection properties named in `metadata` (`zmq_msg_gets`).
    ///
    /// `"User-Id"` is what a ZAP handler assigned to the authenticated peer (how the daemon learns a client's
    /// role); `"Peer-Address"` is the peer's IP. Properties are read from the last frame, because a ROUTER's
    /// routing-id frame is made locally and carries none.
    package func receiveMessage(dontWait: Bool = false, metadata: [String] = ["User-Id"]) throws(ZMQError)
        -> ZMQMessage?
    {
        guard var frame = try receiveFrame(flags: dontWait ? ZMQ_DONTWAIT : 0, metadata: metadata) else {
            return nil
        }
        var frames = [frame.bytes]
        while frame.more {
            guard let next = try receiveFrame(flags: 0, metadata: metadata) else {
                throw ZMQError(code: .wouldBlock, call: "zmq_msg_recv (frame \(frames.count + 1))")
            }
            frame = next
            frames.append(frame.bytes)
        }
        return ZMQMessage(frames: frames, metadata: frame.metadata)
    }

    /// Receives one frame into the reusable `zmq_msg_t` and copies it out once.
    private func receiveFrame(flags: Int32, metadata keys: [String]) throws(ZMQError)
        -> (bytes: [UInt8], more: Bool, metadata: [String: String])?
    {
        let socket = try open("zmq_msg_recv")
        let message = self.message
        zmq_msg_init(message)  // cannot fail: it only resets the structure
        defer { zmq_msg_close(message) }
        guard try ZMQ.call("zmq_msg_recv", { zmq_msg_recv(message, socket, flags) }) != nil else { return nil }
        let size = zmq_msg_size(message)
        // An empty frame (a REQ-style delimiter) allocates nothing.
        let bytes =
            size == 0
            ? []
            : [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
                if size > 0, let data = zmq_msg_data(message) {
                    UnsafeMutableRawBufferPointer(buffer).copyMemory(
                        from: UnsafeRawBufferPointer(start: data, count: size))
                }
                count = size
            }
        let more = zmq_msg_more(message) == 1
        var properties: [String: String] = [:]
        if !more {
            for key in keys {
                if let value = zmq_msg_gets(message, key) { properties[key] = String(cString: value) }
            }
        }
        return (bytes, more, properties)
    }
}

/// A socket must stay on its owner thread; see ``ZMQSocketTransfer`` for the one sanctioned hand-over.
@available(*, unavailable)
extension ZMQSocket: Sendable {}
