import Glibc

/// zmq_tcp(7) binds an address or an interface name, never a host name: `tcp://localhost:7400`
/// fails `zmq_bind` with a bare `ENODEV` ("No such device"). What every binder (segued's config,
/// `segue relay`, `replay --publish`) says instead, before it binds.
package enum BindHost {
    /// Why a tcp `endpoint` cannot be bound on this machine (a host that is neither `*`, an address
    /// nor one of its network interfaces), worded to follow the endpoint; nil when it can be tried.
    package static func refusal(_ endpoint: String) -> String? {
        guard endpoint.hasPrefix("tcp://") else { return nil }
        let address = endpoint.dropFirst("tcp://".count)
        guard let colon = address.lastIndex(of: ":") else { return nil }
        let host = String(address[..<colon])
        let port = address[address.index(after: colon)...]
        guard host != "*", !host.hasPrefix("["), !isIPv4Address(host), if_nametoindex(host) == 0 else { return nil }
        return "binds host '\(host)', which is neither an address nor a network interface of this machine; libzmq "
            + "binds an address or an interface, not a host name: write tcp://127.0.0.1:\(port) for loopback, or the "
            + "address to listen on"
    }

    private static func isIPv4Address(_ host: String) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, host, &address) == 1
    }
}
