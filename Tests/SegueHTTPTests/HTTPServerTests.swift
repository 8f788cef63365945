import Foundation
import HTTPTestSupport
import SegueHTTP
import Synchronization
import Testing

/// The libmicrohttpd wrapper against real sockets: static answers, event streams, the ways they end.
@Suite struct HTTPServerTests {
    static let loopback = ListenAddress(host: "127.0.0.1", port: 0)

    static func page(_ request: HTTPRequest) -> HTTPResponse {
        switch request.path {
        case "/": .ok(Array("<p>hello</p>".utf8), contentType: "text/html; charset=utf-8")
        case "/empty": .ok([], contentType: "text/plain")
        default: .text(404, "no \(request.path)\n")
        }
    }

    @Test func servesBytesWithTheirHeaders() throws {
        let server = try HTTPServer(listen: Self.loopback, handler: Self.page)
        defer { server.stop() }
        #expect(server.address.port != 0)
        let client = try RawHTTPClient(port: server.address.port)
        client.get("/")
        client.read()
        #expect(client.status == 200)
        #expect(client.header("Content-Type") == "text/html; charset=utf-8")
        #expect(client.header("Cache-Control") == "no-store")
        #expect(client.header("X-Content-Type-Options") == "nosniff")
        #expect(client.text.hasSuffix("\r\n\r\n<p>hello</p>"))
    }

    @Test(arguments: [
        ("GET /missing HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", 404, "no /missing"),
        ("GET /empty HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", 200, ""),
        (
            "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello", 405,
            "Only GET and HEAD"
        ),
        (
            "GET / HTTP/1.1\r\nHost: evil.example:80\r\nConnection: close\r\n\r\n", 421,
            "This server answers only to http://127.0.0.1:"
        ),
        // No Host, or a second one after the right one: neither is a browser's, and neither passes.
        ("GET / HTTP/1.0\r\n\r\n", 421, "This server answers only to http://127.0.0.1:"),
        (
            "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n", 421,
            "This server answers only to http://127.0.0.1:"
        ),
    ])
    func answers(request: String, status: Int, body: String) throws {
        let server = try HTTPServer(listen: Self.loopback, handler: Self.page)
        defer { server.stop() }
        let client = try RawHTTPClient(port: server.address.port)
        client.send(request.replacingOccurrences(of: "Host: 127.0.0.1", with: "Host: 127.0.0.1:\(server.address.port)"))
        client.read()
        #expect(client.status == status)
        #expect(client.text.contains("\r\n\r\n" + body))
    }

    @Test func localhostIsAnAcceptedHostOnLoopback() throws {
        let server = try HTTPServer(listen: Self.loopback, handler: Self.page)
        defer { server.stop() }
        let client = try RawHTTPClient(port: server.address.port)
        client.get("/", host: "localhost:\(server.address.port)")
        client.read()
        #expect(client.status == 200)
    }

    @Test func aPortInUseIsSaidSo() throws {
        let first = try HTTPServer(listen: Self.loopback, handler: Self.page)
        defer { first.stop() }
        #expect {
            try HTTPServer(listen: first.address, handler: Self.page)
        } throws: { error in
            let error = error as? HTTPError
            return error?.code == .addressInUse
                && error?.message
                    == "Cannot listen on \(first.address): the port is already in use (Address already in use)."
        }
    }

    /// Events queued before and after the client connects arrive in order; `close` ends the response.
    @Test func streamsEventsUntilClosed() throws {
        let stream = EventStream()
        stream.send(event: "hello", data: Array("{\"n\":0}".utf8))
        let server = try HTTPServer(listen: Self.loopback) { request in
            request.path == "/events" ? .events(stream) : Self.page(request)
        }
        defer { server.stop() }
        let client = try RawHTTPClient(port: server.address.port)
        client.get("/events")
        client.read { $0.contains("{\"n\":0}") }
        #expect(client.header("Content-Type") == "text/event-stream; charset=utf-8")
        #expect(client.header("Transfer-Encoding") == "chunked")
        // The connection is suspended now (nothing queued): each send must wake it.
        for n in 1...50 {
            stream.send(data: Array("{\"n\":\(n)}".utf8))
            if n % 10 == 0 { client.read { $0.contains("{\"n\":\(n)}") } }
        }
        stream.comment("keep-alive")
        stream.close()
        client.read()
        #expect(client.events.map(\.data) == (0...50).map { "{\"n\":\($0)}" })
        #expect(client.events.first?.name == "hello")
        #expect(client.text.contains(": keep-alive\n\n"))
        #expect(client.text.hasSuffix("0\r\n\r\n"))
        #expect(!stream.send(data: Array("late".utf8)))
    }

    /// Senders on many threads at once while libmicrohttpd reads: every event arrives exactly once.
    @Test func concurrentSendersLoseNothing() throws {
        let stream = EventStream()
        let server = try HTTPServer(listen: Self.loopback) { _ in .events(stream) }
        defer { server.stop() }
        let client = try RawHTTPClient(port: server.address.port)
        client.get("/events")
        client.read { $0.contains("\r\n\r\n") }
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for n in 0..<250 { stream.send(data: Array("\(thread)-\(n)".utf8)) }
        }
        stream.close()
        client.read()
        let got = client.events.map(\.data)
        #expect(got.count == 1000)
        #expect(Set(got).count == 1000)
        for thread in 0..<4 {
            #expect(got.filter { $0.hasPrefix("\(thread)-") } == (0..<250).map { "\(thread)-\($0)" })
        }
    }

    /// A client that went away is noticed at the next write (a keep-alive comment does it), and the
    /// stream's `onFinish` runs.
    @Test func aClientThatLeavesFinishesItsStream() throws {
        let finished = Mutex(false)
        let stream = EventStream(onFinish: { finished.withLock { $0 = true } })
        let server = try HTTPServer(listen: Self.loopback) { _ in .events(stream) }
        defer { server.stop() }
        do {
            let client = try RawHTTPClient(port: server.address.port)
            client.get("/events")
            client.read { $0.contains("\r\n\r\n") }
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while !stream.isFinished, ContinuousClock.now < deadline {
            stream.comment("anyone there?")
            usleep(20_000)
        }
        #expect(stream.isFinished)
        #expect(finished.withLock { $0 })
        #expect(server.openStreams == 0)
    }

    /// A client that does not read gets its stream ended once too much is queued for it.
    @Test func aStreamPastItsLimitEnds() throws {
        let stream = EventStream(limit: 4096)
        #expect(stream.send(data: [UInt8](repeating: 65, count: 1000)))
        #expect(stream.send(data: [UInt8](repeating: 66, count: 1000)))
        #expect(!stream.send(data: [UInt8](repeating: 67, count: 3000)))
        #expect(stream.queuedBytes == 0)
        #expect(!stream.send(data: Array("after".utf8)))
    }

    /// A stream with a small send buffer keeps what a reader that stopped has not taken in its queue,
    /// where the sender sees it, not in megabytes of kernel buffer.
    @Test func aStreamsSendBufferKeepsAStoppedReadersBacklogQueued() throws {
        let stream = EventStream(sendBuffer: 16 << 10)
        let server = try HTTPServer(listen: Self.loopback) { _ in .events(stream) }
        defer { server.stop() }
        let client = try RawHTTPClient(port: server.address.port, receiveBuffer: 4096)
        client.get("/events")
        client.read { $0.contains("\r\n\r\n") }
        let message = [UInt8](repeating: 65, count: 10_000)
        for _ in 0..<400 { stream.send(data: message) }
        usleep(200_000)
        // 4 MB sent; the kernel holds ~32 KiB on this side and little on the reader's.
        #expect(stream.queuedBytes > 4_000_000 - (256 << 10), "queued: \(stream.queuedBytes)")
        shutdown(client.fd, Int32(SHUT_RDWR))
    }

    /// An upload is refused with the headers: a client that asked `Expect: 100-continue` for 100 MB
    /// gets the 405, not a go-ahead to send what would be read and dropped.
    @Test func anUploadIsRefusedBeforeItsBody() throws {
        let server = try HTTPServer(listen: Self.loopback, handler: Self.page)
        defer { server.stop() }
        let client = try RawHTTPClient(port: server.address.port)
        client.send(
            "POST / HTTP/1.1\r\nHost: 127.0.0.1:\(server.address.port)\r\nContent-Length: 104857600\r\n"
                + "Expect: 100-continue\r\n\r\n")
        client.read { $0.contains("GET and HEAD") }
        #expect(client.status == 405, "\(client.text)")
        #expect(!client.text.contains("100 Continue"), "\(client.text)")
    }

    /// One message larger than the limit is taken when nothing else waits (a fleet's picture, a
    /// navigator of large params): it would otherwise end every stream, however fast its reader.
    @Test func aMessageLargerThanTheLimitAloneIsTaken() throws {
        let stream = EventStream(limit: 4096)
        #expect(stream.send(data: [UInt8](repeating: 65, count: 10_000)))
        #expect(!stream.send(data: [UInt8](repeating: 66, count: 10)), "behind it, the limit holds")
    }

    /// Stopping with streams suspended (libmicrohttpd must not stop so) ends them and returns.
    @Test func stopEndsOpenStreams() throws {
        let streams = Mutex<[EventStream]>([])
        let server = try HTTPServer(listen: Self.loopback) { _ in
            let stream = EventStream()
            streams.withLock { $0.append(stream) }
            return .events(stream)
        }
        let clients = try (0..<3).map { _ in try RawHTTPClient(port: server.address.port) }
        for client in clients {
            client.get("/events")
            client.read { $0.contains("\r\n\r\n") }
        }
        #expect(server.openStreams == 3)
        server.stop()
        for client in clients {
            client.read()
            #expect(client.text.hasSuffix("0\r\n\r\n"))
        }
        #expect(streams.withLock { $0.allSatisfy(\.isFinished) })
        server.stop()
    }
}
