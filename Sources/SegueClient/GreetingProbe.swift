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

    /// What a peer said when asked (`ask`).
    enum Answer: Equatable {
        /// Not ZeroMQ: the printable start of what it sent (e.g. `SSH-2.0-OpenSSH_9.2`).
        case foreign(String)
        /// A ZeroMQ peer: its security mechanism (`NULL`, `CURVE`) and, under `NULL`, its socket type
        /// (`ROUTER`, `XPUB`, …) from its READY command; nil where it did not say in time.
        case zeroMQ(mechanism: String?, socketType: String?)
        /// Nothing within the wait, or it could not be asked (not tcp, no such host, the connect failed).
        /// Silence proves nothing: a loaded daemon may greet late.
        case unknown
    }

    /// Asks the peer at `endpoint` what it is. A ZeroMQ peer is greeted as a `NULL` client whose
    /// greeting ends there: libzmq then sends its own greeting and, under `NULL`, its READY with its
    /// socket type, before it would read (and refuse) this side's READY, which is never sent.
    static func ask(_ endpoint: String, within timeout: Duration) -> Answer {
        guard let (host, port) = tcpAddress(endpoint) else { return .unknown }
        let deadline = ContinuousClock.now + timeout
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, port, &hints, &found) == 0, let found else { return .unknown }
        defer { freeaddrinfo(found) }
        let fd = socket(found.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .unknown }
        defer { close(fd) }
        // Bounds the connect too (Linux applies SO_SNDTIMEO to it).
        var wait = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
        wait.tv_usec = Int(timeout.components.attoseconds / 1_000_000_000_000)
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        guard connect(fd, found.pointee.ai_addr, found.pointee.ai_addrlen) == 0 else { return .unknown }
        var reader = Reader(fd: fd, deadline: deadline)
        send(fd, signature)
        // Until a ZeroMQ peer's first byte, or another's first line.
        while reader.received.first != signature[0], reader.received.count < quoted,
            !reader.received.contains(0x0A), reader.read(upTo: quoted)
        {}
        if let greeting = foreign(reader.received) { return .foreign(greeting) }
        guard reader.received.first == signature[0] else { return .unknown }
        send(fd, restOfGreeting)
        guard reader.read(through: greetingLength) else { return .zeroMQ(mechanism: nil, socketType: nil) }
        let mechanism = mechanism(of: reader.received)
        guard mechanism == "NULL", let size = reader.commandSize(at: greetingLength),
            reader.read(through: greetingLength + size.header + size.body)
        else { return .zeroMQ(mechanism: mechanism, socketType: nil) }
        let body = Array(reader.received[(greetingLength + size.header)...].prefix(size.body))
        return .zeroMQ(mechanism: mechanism, socketType: readyProperty("Socket-Type", in: body))
    }

    /// ZMTP 3's greeting is 64 bytes: the signature, the version, the mechanism's name (20 bytes, NUL
    /// padded), as-server, filler.
    static let greetingLength = 64

    /// The greeting after the signature: version 3.0, `NULL`, as a client.
    static let restOfGreeting: [UInt8] =
        [3, 0] + Array("NULL".utf8) + [UInt8](repeating: 0, count: 16) + [0]
        + [UInt8](repeating: 0, count: 31)

    /// The mechanism a greeting names (`NULL`, `PLAIN`, `CURVE`).
    static func mechanism(of greeting: [UInt8]) -> String? {
        guard greeting.count >= 32 else { return nil }
        let name = greeting[12..<32].prefix { $0 != 0 }
        return name.isEmpty ? nil : String(decoding: name, as: UTF8.self)
    }

    /// A property of a READY command's body (`\u{5}READY`, then each name's length in a byte, the
    /// name, the value's length in four bytes, the value).
    static func readyProperty(_ wanted: String, in body: [UInt8]) -> String? {
        let ready = [5] + Array("READY".utf8)
        guard body.starts(with: ready) else { return nil }
        var index = ready.count
        while index < body.count {
            let nameLength = Int(body[index])
            let valueAt = index + 1 + nameLength + 4
            guard valueAt <= body.count else { return nil }
            let name = body[(index + 1)..<(index + 1 + nameLength)]
            let valueLength = body[(valueAt - 4)..<valueAt].reduce(0) { $0 << 8 | Int($1) }
            guard valueAt + valueLength <= body.count else { return nil }
            if name.elementsEqual(wanted.utf8) {
                return String(decoding: body[valueAt..<(valueAt + valueLength)], as: UTF8.self)
            }
            index = valueAt + valueLength
        }
        return nil
    }

    private static func send(_ fd: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// What the peer sent so far, read until a deadline.
    private struct Reader {
        let fd: Int32
        let deadline: ContinuousClock.Instant
        var received: [UInt8] = []

        init(fd: Int32, deadline: ContinuousClock.Instant) {
            self.fd = fd
            self.deadline = deadline
        }

        /// Reads once, at most `limit` bytes in all; false when nothing more came in time.
        mutating func read(upTo limit: Int) -> Bool {
            let left = deadline - ContinuousClock.now
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: Int((left / .milliseconds(1)).rounded(.up)))
            guard left > .zero, poll(&ready, 1, milliseconds) > 0 else { return false }
            var buffer = [UInt8](repeating: 0, count: max(0, limit - received.count))
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return false }
            received += buffer[..<count]
            return true
        }

        /// Reads until `count` bytes in all came; false if they did not in time.
        mutating func read(through count: Int) -> Bool {
            while received.count < count { guard read(upTo: count) else { return false } }
            return true
        }

        /// The header and body sizes of the command frame at `offset` (flags 0x04 short, 0x06 long).
        mutating func commandSize(at offset: Int) -> (header: Int, body: Int)? {
            guard read(through: offset + 2) else { return nil }
            switch received[offset] {
            case 0x04: return (2, Int(received[offset + 1]))
            case 0x06:
                guard read(through: offset + 9) else { return nil }
                // Unsigned: a length with its top bit set is huge, never negative.
                let size = received[(offset + 1)..<(offset + 9)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                return size <= 4096 ? (9, Int(size)) : nil
            default: return nil
            }
        }
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
