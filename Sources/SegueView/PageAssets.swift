/// The viewer's and the timeline's static files, embedded at build time from `Page/` (the EmbedPage
/// plugin), so the `segue` binary needs nothing installed beside it.
package enum PageAssets {
    /// The file's text; a name not in `Page/` is a programming error.
    package static func text(_ name: String) -> String {
        guard let text = PageFiles.contents[name] else { preconditionFailure("no page file \(name)") }
        return text
    }

    package static var names: [String] { PageFiles.contents.keys.sorted() }

    /// The Content-Type to serve a page file with.
    package static func contentType(_ name: String) -> String {
        switch name.split(separator: ".").last {
        case "html": "text/html; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        default: "application/octet-stream"
        }
    }
}
