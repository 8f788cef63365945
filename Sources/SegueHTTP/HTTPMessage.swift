/// A request as the handler sees it: GET and HEAD only reach it (the server answers others 405).
package struct HTTPRequest: Equatable, Sendable {
    package var method: String
    /// The path, without the query.
    package var path: String
    /// The `Host` header, if any.
    package var host: String?

    package init(method: String, path: String, host: String? = nil) {
        self.method = method
        self.path = path
        self.host = host
    }
}

/// What the handler answers: bytes, or a stream of Server-Sent Events that stays open.
package struct HTTPResponse: Sendable {
    package enum Body: Sendable {
        case bytes([UInt8])
        case events(EventStream)
    }

    package var status: Int
    package var headers: [(name: String, value: String)]
    package var body: Body

    package init(status: Int, headers: [(name: String, value: String)] = [], body: Body) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    package static func ok(_ bytes: [UInt8], contentType: String, headers: [(name: String, value: String)] = [])
        -> HTTPResponse
    {
        HTTPResponse(status: 200, headers: [("Content-Type", contentType)] + headers, body: .bytes(bytes))
    }

    package static func text(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: .bytes(Array(text.utf8)))
    }

    /// A stream of events; the headers tell proxies and browsers not to buffer or cache it.
    package static func events(_ stream: EventStream) -> HTTPResponse {
        HTTPResponse(
            status: 200,
            headers: [("Content-Type", "text/event-stream; charset=utf-8"), ("X-Accel-Buffering", "no")],
            body: .events(stream))
    }
}
