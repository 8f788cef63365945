import Glibc

/// A TCP socket bound and listening, for libmicrohttpd to accept on. Bound here rather than by
/// libmicrohttpd so that a failure is reported with its errno (a port in use is the usual one) and
/// port 0 can be asked for and then read back.
enum ListeningSocket {
    static func open(_ address: ListenAddress) throws(HTTPError) -> (fd: Int32, port: UInt16) {
        let family = address.isIPv6 ? AF_INET6 : AF_INET
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw failure(address, errno) }
        var yes: Int32 = 1
        // Lets a restarted viewer bind while its old connections linger in TIME_WAIT; a live listener
        // on the port still makes bind fail with EADDRINUSE.
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        if address.isIPv6 {
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &yes, socklen_t(MemoryLayout<Int32>.size))
        }
        do throws(HTTPError) {
            try bind(fd, address)
            guard listen(fd, 64) == 0 else { throw failure(address, errno) }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            return (fd, try boundPort(fd, address))
        } catch {
            close(fd)
            throw error
        }
    }

    private static func bind(_ fd: Int32, _ address: ListenAddress) throws(HTTPError) {
        /// bind(2) with `sa` as the generic `sockaddr` it is.
        func bind<Address>(_ sa: inout Address) -> Int32 {
            withUnsafePointer(to: &sa) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.bind(fd, $0, socklen_t(MemoryLayout<Address>.size))
                }
            }
        }
        let result: Int32
        if address.isIPv6 {
            var sa = sockaddr_in6()
            sa.sin6_family = sa_family_t(AF_INET6)
            sa.sin6_port = address.port.bigEndian
            _ = inet_pton(AF_INET6, address.host, &sa.sin6_addr)
            result = bind(&sa)
        } else {
            var sa = sockaddr_in()
            sa.sin_family = sa_family_t(AF_INET)
            sa.sin_port = address.port.bigEndian
            _ = inet_pton(AF_INET, address.host, &sa.sin_addr)
            result = bind(&sa)
        }
        guard result == 0 else { throw failure(address, errno) }
    }

    private static func boundPort(_ fd: Int32, _ address: ListenAddress) throws(HTTPError) -> UInt16 {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
        }
        guard ok else { throw failure(address, errno) }
        return withUnsafePointer(to: &storage) { pointer in
            // sin_port and sin6_port sit at the same offset, right after the family.
            pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
    }

    static func failure(_ address: ListenAddress, _ code: Int32) -> HTTPError {
        let reason = String(cString: strerror(code))
        switch code {
        case EADDRINUSE:
            return HTTPError(.addressInUse, "Cannot listen on \(address): the port is already in use (\(reason)).")
        case EADDRNOTAVAIL:
            return HTTPError(
                .addressUnavailable,
                "Cannot listen on \(address): that address is not one of this machine's (\(reason)).")
        case EACCES, EPERM:
            return HTTPError(
                .permissionDenied, "Cannot listen on \(address): permission denied (ports below 1024 need root).")
        default:
            return HTTPError(.startFailed, "Cannot listen on \(address): \(reason) (errno \(code)).")
        }
    }
}
