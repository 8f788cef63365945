import CMicroHTTPD
import Synchronization

/// One open `text/event-stream` response (Server-Sent Events): any thread queues events with `send`,
/// libmicrohttpd's thread takes them through `read`.
///
/// With nothing queued, `read` suspends the connection (libmicrohttpd then stops polling it) and
/// the next `send` resumes it. Both happen under the stream's lock, so a `send` can never resume a
/// connection before it is suspended, nor miss one that is; a suspended connection cannot finish, so
/// the pointer a `send` resumes is alive.
package final class EventStream: Sendable {
    private struct State: ~Copyable {
        /// Queued bytes, in chunks: a message shared by many streams is queued without a copy.
        var chunks: [[UInt8]] = []
        /// The first chunk not yet read whole, and how much of it was read.
        var head = 0
        var offset = 0
        var queued = 0
        var connection: MHDConnection?
        var suspended = false
        /// No more events: `read` ends the response once the queue is empty.
        var closing = false
        /// libmicrohttpd is done with the response (sent, or the client went away).
        var finished = false
    }

    private let state = Mutex(State())
    /// Past this many queued bytes the client is too slow: the stream is ended, and a browser's
    /// `EventSource` reconnects by itself (a viewer then starts over from a snapshot). One message
    /// larger than this is still taken when nothing else waits: it would end every stream, however
    /// fast its reader, and a reconnect would meet it again.
    package let limit: Int
    /// The connection's kernel send buffer (`SO_SNDBUF`, which the kernel doubles), when the sender
    /// wants a slow reader's backlog kept in `queuedBytes`, where it can see it, rather than in
    /// megabytes of socket buffer; nil leaves the kernel's own, which suits a finite stream.
    package let sendBuffer: Int?
    private let onFinish: @Sendable () -> Void

    package init(limit: Int = .max, sendBuffer: Int? = nil, onFinish: @escaping @Sendable () -> Void = {}) {
        self.limit = limit
        self.sendBuffer = sendBuffer
        self.onFinish = onFinish
    }

    /// Queues one event (`message(event:data:)`). Returns false when the stream is over (finished,
    /// closing, or just ended for being too slow).
    @discardableResult
    package func send(event: String? = nil, data: [UInt8]) -> Bool {
        send(raw: Self.message(event: event, data: data))
    }

    /// One event in event-stream form: `event: NAME` (when given) and `data: TEXT`, which must be one
    /// line; made once, it can be queued on many streams.
    package static func message(event: String?, data: [UInt8]) -> [UInt8] {
        var message: [UInt8] = []
        message.reserveCapacity(data.count + 24)
        if let event { message += Array("event: \(event)\n".utf8) }
        message += Array("data: ".utf8)
        message += data
        message += [10, 10]
        return message
    }

    /// Queues a comment line, which browsers ignore: it keeps proxies from timing the stream out and
    /// shows a client that went away (its connection fails on the write).
    @discardableResult
    package func comment(_ text: String) -> Bool { send(raw: Array(": \(text)\n\n".utf8)) }

    /// Queues bytes already in event-stream form (one or more whole messages).
    @discardableResult
    package func send(raw message: [UInt8]) -> Bool {
        let (accepted, resume) = state.withLock { s -> (Bool, MHDConnection?) in
            guard !s.finished, !s.closing else { return (false, nil) }
            let waiting = s.queued
            s.chunks.append(message)
            s.queued += message.count
            if s.queued > limit, waiting > 0 {
                s.closing = true
                s.chunks = []
                s.head = 0
                s.offset = 0
                s.queued = 0
            }
            return (!s.closing, takeSuspended(&s))
        }
        if let resume { MHD_resume_connection(resume.pointer) }
        return accepted
    }

    /// Ends the response once what is queued has been read.
    package func close() {
        let resume = state.withLock { s -> MHDConnection? in
            s.closing = true
            return takeSuspended(&s)
        }
        if let resume { MHD_resume_connection(resume.pointer) }
    }

    package var isFinished: Bool { state.withLock { $0.finished } }

    /// Bytes queued and not yet taken by libmicrohttpd.
    package var queuedBytes: Int { state.withLock { $0.queued } }

    /// The suspended connection to resume, marked resumed: only the caller that takes it resumes it.
    private func takeSuspended(_ s: inout State) -> MHDConnection? {
        guard s.suspended, let connection = s.connection else { return nil }
        s.suspended = false
        return connection
    }

    // MARK: Called by libmicrohttpd's thread (through HTTPServer's callbacks)

    func attach(_ connection: MHDConnection) {
        state.withLock { $0.connection = connection }
    }

    /// Copies up to `max` queued bytes; with none, suspends the connection and returns 0, or ends the
    /// response if the stream is closing.
    func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        state.withLock { s in
            var copied = 0
            while copied < max, s.head < s.chunks.count {
                let chunk = s.chunks[s.head]
                let n = min(max - copied, chunk.count - s.offset)
                chunk.withUnsafeBufferPointer { source in
                    (buffer + copied).withMemoryRebound(to: UInt8.self, capacity: n) {
                        $0.update(from: source.baseAddress! + s.offset, count: n)
                    }
                }
                copied += n
                s.offset += n
                if s.offset == chunk.count {
                    s.head += 1
                    s.offset = 0
                }
            }
            // Read chunks are dropped in batches, so a long queue costs O(1) per chunk.
            if s.head == s.chunks.count || s.head >= 1024 {
                s.chunks.removeFirst(s.head)
                s.head = 0
            }
            s.queued -= copied
            if copied > 0 { return copied }
            if s.closing { return SEGUE_MHD_END_OF_STREAM }
            if let connection = s.connection {
                s.suspended = true
                MHD_suspend_connection(connection.pointer)
            }
            return 0
        }
    }

    /// libmicrohttpd has dropped the response: the connection is no longer to be touched.
    func finished() {
        state.withLock { s in
            s.finished = true
            s.connection = nil
            s.suspended = false
            s.chunks = []
            s.head = 0
            s.offset = 0
            s.queued = 0
        }
        onFinish()
    }

}

/// A libmicrohttpd connection pointer, passed between its thread and senders under the stream's lock.
struct MHDConnection: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}
