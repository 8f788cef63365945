import Glibc
import SegueWire

/// A ZeroMQ endpoint: `tcp://host:port`, `ipc://path` or `inproc://name`, checked when the config
/// is read so that a typo fails start-up with its path instead of a bare `EINVAL` from `zmq_bind`
/// later.
///
/// What is accepted follows zmq_tcp(7), zmq_ipc(7) and zmq_inproc(7): a tcp host is an IPv4
/// address, a bracketed IPv6 address, a host name, an interface name or `*` (all interfaces); the
/// port is 1 to 65535 or `*` (an ephemeral port, which the daemon logs). An ipc path is a file path or,
/// Linux only, `@name` in the abstract namespace; it must fit `sun_path` (107 bytes). An endpoint the
/// daemon binds (`init(binding:)`) takes no host name: libzmq binds an address or an interface.
package struct Endpoint: Sendable, Hashable, CustomStringConvertible {
    package enum Transport: String, Sendable {
        case tcp, ipc, inproc
    }

    package let transport: Transport
    /// Everything after `://`.
    package let address: String

    /// The endpoint as ZeroMQ takes it.
    package var description: String { "\(transport.rawValue)://\(address)" }

    /// The longest ipc path: `sizeof(sun_path)` is 108 on Linux, one byte of which is the terminator.
    static let maxIPCPathBytes = 107

    /// Parses and checks an endpoint; the error is a reason that follows "must be ...".
    package init(parsing text: String) throws(EndpointError) {
        guard let separator = text.firstRange(of: "://") else {
            throw EndpointError("'\(text)' is not an endpoint; write tcp://host:port, ipc://path or inproc://name")
        }
        let scheme = String(text[..<separator.lowerBound])
        let address = String(text[separator.upperBound...])
        guard let transport = Transport(rawValue: scheme) else {
            throw EndpointError("'\(text)' has transport '\(scheme)'; segued binds tcp, ipc or inproc")
        }
        guard !address.isEmpty else { throw EndpointError("'\(text)' has no address after '://'") }
        switch transport {
        case .tcp: try Self.checkTCP(address, in: text)
        case .ipc:
            guard address.utf8.count <= Self.maxIPCPathBytes else {
                throw EndpointError("'\(text)' has an ipc path longer than \(Self.maxIPCPathBytes) bytes")
            }
        case .inproc: break
        }
        self.transport = transport
        self.address = address
    }

    /// An endpoint to bind on this machine: as `init(parsing:)`, and a tcp host other than `*` or an
    /// address must be one of its network interfaces. zmq_tcp(7) binds an address or an interface
    /// name, never a host name: `tcp://localhost:7400` would pass the config check and then fail
    /// `zmq_bind` with `ENODEV` at start.
    package init(binding text: String) throws(EndpointError) {
        try self.init(parsing: text)
        if let refusal = IPCSocketFile.refusal(text) ?? BindHost.refusal(text) {
            throw EndpointError("'\(text)' \(refusal)")
        }
    }

    /// The host part of a tcp endpoint, brackets removed; `nil` for other transports.
    package var tcpHost: String? {
        guard transport == .tcp, let colon = address.lastIndex(of: ":") else { return nil }
        var host = address[..<colon]
        if host.hasPrefix("[") && host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        return String(host)
    }

    /// Whether binding both would fail on the second, as the same endpoint written another way:
    /// tcp on one port number (`017400` is `17400`) where the hosts are equal or either is every
    /// interface (`*`, `0.0.0.0`, `::`); ipc on the same file however its path is written
    /// (`ipcFile`), inproc on the same name. A `*` port is a new free port at each bind and clashes
    /// with nothing. (Two interfaces, or an interface and its
    /// address, are not compared: the bind says so at start.)
    package func clashes(with other: Endpoint) -> Bool {
        guard transport == other.transport else { return false }
        if transport == .ipc { return ipcFile == other.ipcFile }
        guard transport == .tcp else { return address == other.address }
        guard let port = tcpPort, let otherPort = other.tcpPort, port == otherPort,
            let host = tcpHost, let otherHost = other.tcpHost
        else { return false }
        let everywhere: Set = ["*", "0.0.0.0", "::"]
        return host.lowercased() == otherHost.lowercased() || everywhere.contains(host)
            || everywhere.contains(otherHost)
    }

    /// Whether `other` is this endpoint given again in one list: the same text, or the same ipc file
    /// written another way. (Other clashes within a list are left to the bind.)
    package func repeats(_ other: Endpoint) -> Bool {
        self == other || (transport == .ipc && clashes(with: other))
    }

    /// The socket file an ipc path names, as one spelling: absolute, with the directory's `.`, `..` and
    /// symbolic links resolved when it exists (lexically when it does not). An abstract name (`@name`)
    /// is itself.
    var ipcFile: String {
        guard !address.hasPrefix("@") else { return address }
        var absolute = address
        if !absolute.hasPrefix("/"), let cwd = getcwd(nil, 0) {
            absolute = String(cString: cwd) + "/" + absolute
            free(cwd)
        }
        var parts: [Substring] = []
        for part in absolute.split(separator: "/") where part != "." {
            if part == ".." { _ = parts.popLast() } else { parts.append(part) }
        }
        let name = parts.popLast().map(String.init) ?? ""
        var directory = "/" + parts.joined(separator: "/")
        if let resolved = realpath(directory, nil) {
            directory = String(cString: resolved)
            free(resolved)
        }
        return directory == "/" ? "/" + name : directory + "/" + name
    }

    /// The port of a tcp endpoint as a number; nil for `*` and other transports.
    var tcpPort: Int? {
        guard transport == .tcp, let colon = address.lastIndex(of: ":") else { return nil }
        return Int(address[address.index(after: colon)...])
    }

    /// Whether other hosts can connect: tcp bound to anything but a loopback address (`127.0.0.0/8`,
    /// `::1`, `localhost`, the `lo` interface). Without CURVE such an endpoint lets anyone on the
    /// network send commands or read every event, which is worth a warning at start-up.
    package var isNonLoopbackTCP: Bool {
        guard let host = tcpHost?.lowercased() else { return false }
        if host == "localhost" || host == "lo" || host == "::1" { return false }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        if octets.count == 4, octets[0] == "127", octets.allSatisfy({ UInt8($0) != nil }) { return false }
        return true
    }

    /// `isNonLoopbackTCP` for endpoint text; false for text that is not a valid endpoint.
    package static func isNonLoopbackTCP(_ endpoint: String) -> Bool {
        (try? Endpoint(parsing: endpoint))?.isNonLoopbackTCP ?? false
    }

    private static func checkTCP(_ address: String, in text: String) throws(EndpointError) {
        guard let colon = address.lastIndex(of: ":") else {
            throw EndpointError("'\(text)' needs a port: tcp://host:port")
        }
        let host = address[..<colon]
        let port = address[address.index(after: colon)...]
        if port != "*" {
            guard let number = Int(port), (1...65535).contains(number), port.first != "+" else {
                throw EndpointError("'\(text)' has port '\(port)'; use 1 to 65535, or * for any free port")
            }
        }
        if host.hasPrefix("[") {
            let inner = host.dropFirst()
            guard inner.hasSuffix("]"), inner.count > 1,
                inner.dropLast().allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." || $0 == "%" })
            else { throw EndpointError("'\(text)' has a malformed IPv6 address; write tcp://[::1]:port") }
            return
        }
        guard !host.isEmpty else { throw EndpointError("'\(text)' needs a host: tcp://127.0.0.1:port or tcp://*:port") }
        let hostCharacters = host.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-._*".contains($0)) }
        guard hostCharacters, host == "*" || !host.contains("*") else {
            // An IPv6 address needs its brackets: the last colon is the port's.
            if host.contains(":") {
                throw EndpointError(
                    "'\(text)' has host '\(host)'; write an IPv6 address in brackets: tcp://[\(host)]:\(port)")
            }
            throw EndpointError("'\(text)' has host '\(host)'; use an address, a host name, an interface or *")
        }
    }
}

/// Why endpoint text is not an endpoint segued can bind.
package struct EndpointError: Error, Equatable, Sendable, CustomStringConvertible {
    package var reason: String
    init(_ reason: String) { self.reason = reason }
    package var description: String { reason }
}
