import CMicroHTTPD
import Glibc
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd: one internal polling thread, connections suspended while
/// their event streams have nothing to send.
///
/// libmicrohttpd calls back on its own thread. The callbacks reach a `Context` retained for the
/// daemon's whole life (released only after `MHD_stop_daemon` returned), never the server itself, so
/// a server going away cannot leave a callback holding a dangling pointer.
package final class HTTPServer: Sendable {
    package typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    /// The address listened on, with the port actually bound (when 0 was asked for).
    package let address: ListenAddress
    private let daemon: Mutex<OpaquePointer?>
    private let context: Unmanaged<Context>

    /// Binds `listen` and starts serving `handler`'s answers. `log` receives libmicrohttpd's own
    /// messages (a client that went away mid-response, ...), on its thread.
    package init(
        listen: ListenAddress, log: @escaping @Sendable (String) -> Void = { _ in },
        handler: @escaping Handler
    ) throws(HTTPError) {
        let (fd, port) = try ListeningSocket.open(listen)
        address = ListenAddress(host: listen.host, port: port)
        context = Unmanaged.passRetained(Context(address: address, handler: handler, log: log))
        let flags =
            MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_AUTO.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
            | MHD_USE_ERROR_LOG.rawValue | (listen.isIPv6 ? MHD_USE_IPv6.rawValue : 0)
        let cls = context.toOpaque()
        guard
            let started = segue_mhd_start(
                flags, fd, accessCallback, cls, logCallback, cls, Self.connectionLimit, Self.connectionsPerAddress,
                Self.idleTimeoutSeconds)
        else {
            context.release()
            close(fd)
            throw HTTPError(.startFailed, "libmicrohttpd could not start serving on \(address).")
        }
        daemon = Mutex(started)
    }

    /// At most this many connections at once (each browser tab holds one or two).
    static let connectionLimit: UInt32 = 128
    /// At most this many from one address, so that one host cannot take every connection (a browser
    /// opens at most six to a server). On loopback every local client shares the one address.
    static let connectionsPerAddress: UInt32 = 32
    /// A connection idle this long is closed; an event stream's keep-alive comments (every 15 s)
    /// keep it busy. Short, so connections opened and left idle (or left half-sent) hold their
    /// places for half a minute, not two.
    static let idleTimeoutSeconds: UInt32 = 30

    /// Event streams still open.
    package var openStreams: Int { context.takeUnretainedValue().streamCount }

    /// Stops accepting, ends every event stream, waits (at most `grace`) for libmicrohttpd to let go of
    /// them, then stops. libmicrohttpd must not be stopped with a connection suspended, so streams
    /// are ended (which resumes them) first. Safe to call twice.
    package func stop(grace: Duration = .seconds(2)) {
        guard
            let daemon = daemon.withLock({ d -> OpaquePointer? in
                defer { d = nil }
                return d
            })
        else { return }
        let quiesced = MHD_quiesce_daemon(daemon)
        let context = self.context.takeUnretainedValue()
        let deadline = ContinuousClock.now + grace
        while true {
            context.closeStreams()
            if context.streamCount == 0 || ContinuousClock.now >= deadline { break }
            usleep(2_000)
        }
        MHD_stop_daemon(daemon)
        // A quiesced daemon gave the listening socket back; otherwise stopping closed it.
        if quiesced >= 0 { close(quiesced) }
        self.context.release()
    }

    deinit { stop() }
}

/// What libmicrohttpd's callbacks reach: the handler and the open event streams.
final class Context: Sendable {
    let address: ListenAddress
    let handler: HTTPServer.Handler
    let log: @Sendable (String) -> Void
    private let streams = Mutex<[ObjectIdentifier: EventStream]>([:])

    init(address: ListenAddress, handler: @escaping HTTPServer.Handler, log: @escaping @Sendable (String) -> Void) {
        self.address = address
        self.handler = handler
        self.log = log
    }

    var streamCount: Int { streams.withLock { $0.count } }

    func closeStreams() {
        for stream in streams.withLock({ Array($0.values) }) { stream.close() }
    }

    /// One request, on libmicrohttpd's thread. It calls the access handler at least twice per
    /// request: first with the headers (remembered in `state`), then for each piece of a body and once
    /// more at its end, when the answer is queued.
    func handle(
        _ connection: OpaquePointer, url: String, method: String, uploadSize: UnsafeMutablePointer<Int>,
        state: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        if method != "GET" && method != "HEAD" {
            // Answered with the headers, before any body: an upload (even one that asked `Expect:
            // 100-continue` for 100 MB) is refused, not read and dropped.
            return queue(
                HTTPResponse(
                    status: 405, headers: [("Allow", "GET, HEAD"), ("Content-Type", "text/plain; charset=utf-8")],
                    body: .bytes(Array("Only GET and HEAD are served here.\n".utf8))), on: connection)
        }
        if state.pointee == nil {
            state.pointee = UnsafeMutableRawPointer(bitPattern: 1)
            return .YES
        }
        if uploadSize.pointee != 0 {
            uploadSize.pointee = 0  // a GET's body is never used: read and dropped
            return .YES
        }
        let host = MHD_lookup_connection_value(connection, .HEADER_KIND, "Host").map { String(cString: $0) }
        let response: HTTPResponse
        if address.isLoopback,
            Self.hostCount(connection) != 1 || !address.hostHeaders.contains((host ?? "").lowercased())
        {
            // A page elsewhere that made its own name resolve to 127.0.0.1 (DNS rebinding) must not
            // read what a loopback server shows; nor may a request without a Host, or with two.
            response = .text(421, "This server answers only to \(address.url) (Host was \(host ?? "missing")).\n")
        } else {
            response = handler(HTTPRequest(method: method, path: url, host: host))
        }
        return queue(response, on: connection)
    }

    /// How many `Host` headers the request has.
    private static func hostCount(_ connection: OpaquePointer) -> Int {
        var count = 0
        _ = withUnsafeMutablePointer(to: &count) { counter in
            MHD_get_connection_values(
                connection, .HEADER_KIND,
                { cls, _, key, _ in
                    if let key, strcasecmp(key, "Host") == 0 { cls!.assumingMemoryBound(to: Int.self).pointee += 1 }
                    return .YES
                }, counter)
        }
        return count
    }

    private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        let made: OpaquePointer?
        switch response.body {
        case .bytes(let bytes):
            made = bytes.withUnsafeBytes { raw in
                MHD_create_response_from_buffer(
                    raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress), .RESPMEM_MUST_COPY)
            }
        case .events(let stream):
            stream.attach(MHDConnection(connection))
            if let size = stream.sendBuffer { Self.setSendBuffer(connection, to: size) }
            let id = ObjectIdentifier(stream)
            streams.withLock { $0[id] = stream }
            // Retained for libmicrohttpd until its free callback, which also forgets the stream.
            let cls = Unmanaged.passRetained(StreamBox(stream: stream, context: self)).toOpaque()
            made = MHD_create_response_from_callback(SEGUE_MHD_SIZE_UNKNOWN, 16 * 1024, readCallback, cls, freeCallback)
            if made == nil { Unmanaged<StreamBox>.fromOpaque(cls).release() }
        }
        guard let made else { return .NO }
        for (name, value) in Self.commonHeaders + response.headers { MHD_add_response_header(made, name, value) }
        let result = MHD_queue_response(connection, UInt32(response.status), made)
        MHD_destroy_response(made)
        return result
    }

    private static func setSendBuffer(_ connection: OpaquePointer, to size: Int) {
        let fd = segue_mhd_connection_socket(connection)
        guard fd >= 0 else { return }
        var size = Int32(clamping: size)
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    func forget(_ stream: EventStream) {
        streams.withLock { $0[ObjectIdentifier(stream)] = nil }
    }

    /// Sent with every answer: nothing here is to be cached, sniffed or leaked by referrer.
    static let commonHeaders: [(String, String)] = [
        ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
    ]
}

/// An event stream and the context that tracks it: what the content reader's `cls` points to.
final class StreamBox {
    let stream: EventStream
    let context: Context
    init(stream: EventStream, context: Context) {
        self.stream = stream
        self.context = context
    }
}

private let accessCallback: MHD_AccessHandlerCallback = { cls, connection, url, method, _, _, uploadSize, state in
    let context = Unmanaged<Context>.fromOpaque(cls!).takeUnretainedValue()
    return context.handle(
        connection!, url: String(cString: url!), method: String(cString: method!), uploadSize: uploadSize!,
        state: state!)
}

private let readCallback: MHD_ContentReaderCallback = { cls, _, buffer, max in
    Unmanaged<StreamBox>.fromOpaque(cls!).takeUnretainedValue().stream.read(into: buffer!, max: max)
}

private let freeCallback: MHD_ContentReaderFreeCallback = { cls in
    let box = Unmanaged<StreamBox>.fromOpaque(cls!).takeRetainedValue()
    box.context.forget(box.stream)
    box.stream.finished()
}

private let logCallback: MHD_LogCallback = { cls, format, arguments in
    var buffer = [CChar](repeating: 0, count: 512)
    _ = vsnprintf(&buffer, buffer.count, format!, arguments!)
    let message = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }.trimmingSuffixNewlines()
    Unmanaged<Context>.fromOpaque(cls!).takeUnretainedValue().log(message)
}

extension String {
    fileprivate func trimmingSuffixNewlines() -> String {
        var s = self
        while s.last == "\n" { s.removeLast() }
        return s
    }
}
