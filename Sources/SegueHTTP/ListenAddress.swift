import Glibc

/// Where an HTTP server listens: a numeric IPv4 or IPv6 address and a port (0: any free port).
///
/// Written `127.0.0.1:7480`, `[::1]:7480` or `localhost:7480`; host names are not resolved, so what
/// is bound is exactly what was asked for.
package struct ListenAddress: Equatable, Sendable, CustomStringConvertible {
    package var host: String
    package var port: UInt16

    package init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    package static let viewerDefault = ListenAddress(host: "127.0.0.1", port: 7480)

    package init(parsing text: String) throws(HTTPError) {
        func invalid(_ why: String) -> HTTPError {
            HTTPError(
                .invalidAddress, "'\(text)' is not a listen address (\(why)); expected HOST:PORT, e.g. 127.0.0.1:7480.")
        }
        guard let colon = text.lastIndex(of: ":") else { throw invalid("no :PORT") }
        var host = String(text[..<colon])
        guard let port = UInt16(text[text.index(after: colon)...]) else {
            throw invalid("the port must be a number from 0 to 65535")
        }
        if host.hasPrefix("[") && host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
            guard Self.family(host) == AF_INET6 else { throw invalid("\(host) is not an IPv6 address") }
        } else if host == "localhost" {
            host = "127.0.0.1"
        } else if Self.family(host) != AF_INET {
            throw invalid(host.isEmpty ? "no host" : "\(host) is not a numeric IPv4 address; write IPv6 as [::1]")
        }
        self.init(host: host, port: port)
    }

    package var isIPv6: Bool { Self.family(host) == AF_INET6 }

    /// Whether only this machine can connect: 127.0.0.0/8 or ::1.
    package var isLoopback: Bool {
        if isIPv6 { return host == "::1" || Self.parse6(host) == Self.parse6("::1") }
        return host.split(separator: ".").first == "127"
    }

    package var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The page's address in a browser.
    package var url: String { "http://\(description)/" }

    /// The `Host` header values a browser sends for this address: the address itself, and for loopback
    /// also `localhost` and the other loopback spellings.
    package var hostHeaders: Set<String> {
        var names: Set<String> = [description]
        if isLoopback { names.formUnion(["localhost:\(port)", "127.0.0.1:\(port)", "[::1]:\(port)"]) }
        return names
    }

    static func family(_ host: String) -> Int32? {
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return AF_INET }
        if parse6(host) != nil { return AF_INET6 }
        return nil
    }

    static func parse6(_ host: String) -> [UInt8]? {
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, host, &v6) == 1 else { return nil }
        return withUnsafeBytes(of: &v6) { Array($0) }
    }
}
