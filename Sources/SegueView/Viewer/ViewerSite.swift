import SegueHTTP

/// The viewer's routes: the page, its script and stylesheet, and `/events`, the stream of Server-Sent
/// Events that drives it (`ViewerMessage`).
package enum ViewerSite {
    /// `events` makes the stream for one page's `/events` request.
    package static func respond(_ request: HTTPRequest, events: () -> EventStream) -> HTTPResponse {
        switch request.path {
        case "/", "/index.html":
            return file("viewer.html", headers: [("Content-Security-Policy", contentSecurityPolicy)])
        case "/viewer.js", "/viewer.css":
            return file(String(request.path.dropFirst()))
        case "/events":
            return .events(events())
        case "/favicon.ico":
            return HTTPResponse(status: 204, body: .bytes([]))
        default:
            return .text(404, "Nothing at \(request.path); the viewer is at /.\n")
        }
    }

    /// The page loads only its own files and talks only to this server.
    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
        + "frame-ancestors 'none'"

    static func file(_ name: String, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        .ok(Array(PageAssets.text(name).utf8), contentType: PageAssets.contentType(name), headers: headers)
    }
}
