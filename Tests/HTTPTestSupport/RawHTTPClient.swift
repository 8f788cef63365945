import Foundation

/// A plain TCP client that speaks just enough HTTP/1.1 to check the server byte for byte: requests are
/// written as given, and the answer is read as it arrives (every read is bounded by `timeout`).
package final class RawHTTPClient {
    package let fd: Int32
    package let port: UInt16
    package private(set) var received: [UInt8] = []

    /// True once the peer closed the connection (a read returned 0).
    package private(set) var closed = false

    /// `receiveBuffer`: the socket's receive buffer in bytes (the kernel doubles it), for a client
    /// that stops reading and should fall behind soon, not after megabytes of kernel buffer.
    package init(port: UInt16, timeout: Duration = .seconds(5), receiveBuffer: Int32? = nil) throws {
        self.port = port
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var sa = sockaddr_in()
        sa.sin_family = sa_family_t(AF_INET)
        sa.sin_port = port.bigEndian
        sa.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &sa) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard ok else {
            close(fd)
            throw ClientError.connect(errno)
        }
        var tv = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    package enum ClientError: Error { case connect(Int32) }

    package func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Foundation.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// A GET with the `Host` a browser sends (`127.0.0.1:PORT`) unless `host` is given.
    package func get(_ path: String, host: String? = nil, close: Bool = true) {
        send(
            "GET \(path) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\n" + (close ? "Connection: close\r\n" : "")
                + "\r\n")
    }

    /// Reads until `done` holds for what was received, the peer closes, or a read times out.
    @discardableResult
    package func read(until done: (String) -> Bool = { _ in false }) -> String {
        while !done(text), receive() {}
        return text
    }

    /// Reads until `marker` has arrived, the peer closes, or a read times out; true if it arrived. Only
    /// the newly received bytes are searched, so reading megabytes stays linear.
    package func read(untilReceiving marker: String) -> Bool {
        let marker = Array(marker.utf8)
        var searched = 0
        while true {
            if received.indices.dropFirst(searched).contains(where: { received[$0...].starts(with: marker) }) {
                return true
            }
            searched = max(0, received.count - marker.count + 1)
            guard receive() else { return false }
        }
    }

    /// Reads what has already arrived, without waiting.
    package func readAvailable() {
        while receive(flags: Int32(MSG_DONTWAIT)) {}
    }

    /// One `recv` into `received`; false at the end (closed, failed or timed out).
    private func receive(flags: Int32 = 0) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &buffer, buffer.count, flags)
        if n == 0 { closed = true }
        guard n > 0 else { return false }
        received += buffer[0..<n]
        return true
    }

    package var text: String { String(decoding: received, as: UTF8.self) }

    /// The response's status code, once its first line arrived.
    package var status: Int? {
        guard let line = text.split(separator: "\r\n").first else { return nil }
        let parts = line.split(separator: " ")
        return parts.count > 1 ? Int(parts[1]) : nil
    }

    /// The value of header `name` (case-insensitive) in the response head.
    package func header(_ name: String) -> String? {
        let head = text.components(separatedBy: "\r\n\r\n").first ?? ""
        for line in head.split(separator: "\r\n").dropFirst() {
            let pair = line.split(separator: ":", maxSplits: 1)
            if pair.count == 2, pair[0].lowercased() == name.lowercased() {
                return pair[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// The body so far, with a chunked transfer coding taken off (a last chunk cut short is kept).
    package var body: [UInt8] {
        let crlfcrlf: [UInt8] = [13, 10, 13, 10]
        guard let end = received.indices.first(where: { received[$0...].starts(with: crlfcrlf) }) else { return [] }
        let rest = Array(received[(end + 4)...])
        guard header("Transfer-Encoding") == "chunked" else { return rest }
        var out: [UInt8] = []
        var i = 0
        while let lineEnd = rest[i...].firstIndex(of: 13), lineEnd + 1 < rest.count,
            let size = Int(String(decoding: rest[i..<lineEnd], as: UTF8.self), radix: 16), size > 0
        {
            let start = lineEnd + 2
            out += rest[start..<min(rest.count, start + size)]
            i = start + size + 2
            if i >= rest.count { break }
        }
        return out
    }

    /// The Server-Sent Events received whole so far (a blank line ends each, as a browser dispatches
    /// them): each `data:` line with its `event:` name.
    package var events: [(name: String?, data: String)] {
        var out: [(String?, String)] = []
        var name: String?
        var data: String?
        for line in body.split(separator: 10, omittingEmptySubsequences: false) {
            let text = String(decoding: line, as: UTF8.self)
            if text.hasPrefix("event: ") { name = String(text.dropFirst(7)) }
            if text.hasPrefix("data: ") { data = String(text.dropFirst(6)) }
            if text.isEmpty {
                if let data { out.append((name, data)) }
                (name, data) = (nil, nil)
            }
        }
        return out
    }
}
