import Glibc

/// Asks what listens at a `tcp://` endpoint the way a ZeroMQ peer would: it sends ZMTP's 10-byte
/// signature and reads what comes back.
///
/// libzmq's socket monitor cannot tell a server that is not ZeroMQ from a daemon that hangs up on
/// a handshake without CURVE keys: both show as a connection cut mid-handshake with no detail.
/// Every ZeroMQ peer sends its signature (`0xFF`, eight bytes, `0x7F`) as soon as a connection is
/// made, whatever it then thinks of the client, so a first byte other than `0xFF` settles it. Only
/// asked once a handshake failure is otherwise final: it costs nothing on the way to a working daemon.
enum GreetingProbe {
    /// ZMTP 3's signature: what a peer sends before anything else (rfc.zeromq.org/spec/23).
    static let signature: [UInt8] = [0xFF, 0, 0, 0, 0, 0, 0, 0, 1, 0x7F]

    /// The most bytes read, and quoted back in an error.
    static let quoted = 40

    /// What the peer at `endpoint` sent first when it is not ZeroMQ's greeting (its printable start,
    /// e.g. `SSH-2.0-OpenSSH_9.2`); `nil` when it greeted as ZeroMQ, sent nothing within `timeout`,
    /// or could not be asked (not tcp, the host did not resolve, the connect failed). Silence proves
    /// nothing: a loaded daemon may greet late.
    static func foreignGreeting(at endpoint: String, within timeout: Duration) -> String? {
        guard let (host, port) = tcpAddress(endpoint) else { return nil }
        let deadline = ContinuousClock.now + timeout
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, port, &hints, &found) == 0, let found else { return nil }
        defer { freeaddrinfo(found) }
        let fd = socket(found.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        // Bounds the connect too (Linux applies SO_SNDTIMEO to it).
        var wait = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
        wait.tv_usec = Int(timeout.components.attoseconds / 1_000_000_000_000)
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        guard connect(fd, found.pointee.ai_addr, found.pointee.ai_addrlen) == 0 else { return nil }
        _ = signature.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: quoted)
        // Until a ZeroMQ peer's first byte, or another's first line.
        while received.first != signature[0], received.count < quoted, !received.contains(0x0A) {
            let left = deadline - ContinuousClock.now
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: Int((left / .milliseconds(1)).rounded(.up)))
            guard left > .zero, poll(&ready, 1, milliseconds) > 0 else { break }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, quoted - received.count, 0) }
            guard count > 0 else { break }
            received += buffer[..<count]
        }
        return foreign(received)
    }

    /// The printable first line of what a peer sent, unless it is empty or ZeroMQ's greeting.
    static func foreign(_ received: [UInt8]) -> String? {
        guard let first = received.first, first != signature[0] else { return nil }
        let line = received.prefix { $0 != 0x0A && $0 != 0x0D }
        return String(decoding: line.map { (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }

    /// The host (brackets taken off an IPv6 address) and port of a `tcp://HOST:PORT` endpoint.
    static func tcpAddress(_ endpoint: String) -> (String, String)? {
        guard endpoint.hasPrefix("tcp://") else { return nil }
        let address = endpoint.dropFirst("tcp://".count)
        guard let colon = address.lastIndex(of: ":") else { return nil }
        var host = address[..<colon]
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        // A client may name the interface too (`tcp://eth0;HOST:PORT`): only the remote address counts.
        if let semicolon = host.lastIndex(of: ";") { host = host[host.index(after: semicolon)...] }
        return (String(host), String(address[address.index(after: colon)...]))
    }
}
