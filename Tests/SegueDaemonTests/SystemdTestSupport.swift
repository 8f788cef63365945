import Foundation
import Glibc

/// A stand-in for systemd's notification socket: an `AF_UNIX` datagram socket bound in a fresh temp
/// directory, whose path goes into a daemon's `NOTIFY_SOCKET` (the environment of a child `segued`, or
/// this process's for in-process tests). `receive` returns each datagram as text, as systemd sees it.
///
/// Shared by the notifier's unit tests and the daemon's end-to-end tests.
final class NotifySocketListener {
    /// The socket path, for `NOTIFY_SOCKET`.
    let path: String
    private let directory: String
    private let fd: Int32

    init() throws {
        directory = NSTemporaryDirectory() + "segue-notify-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        path = directory + "/notify.sock"
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw NotifySocketError.system("socket", errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw NotifySocketError.pathTooLong(path)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else {
            let error = errno
            close(fd)
            throw NotifySocketError.system("bind", error)
        }
    }

    /// The next datagram, or nil if none arrives within `timeout`.
    func receive(timeout: Duration = .seconds(5)) throws -> String? {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(
            timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        while true {
            let ready = poll(&descriptor, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready >= 0 else { throw NotifySocketError.system("poll", errno) }
            if ready == 0 { return nil }
            break
        }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else { throw NotifySocketError.system("recv", errno) }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }

    /// Datagrams until one contains `assignment` (e.g. `READY=1`), in order, that one included; fails if
    /// none arrives within `timeout` of the previous.
    func receive(until assignment: String, timeout: Duration = .seconds(10)) throws -> [String] {
        var messages: [String] = []
        while let message = try receive(timeout: timeout) {
            messages.append(message)
            if message.split(separator: "\n").contains(Substring(assignment)) { return messages }
        }
        throw NotifySocketError.timedOut(waitingFor: assignment, received: messages)
    }

    deinit {
        close(fd)
        try? FileManager.default.removeItem(atPath: directory)
    }
}

enum NotifySocketError: Error, CustomStringConvertible {
    case system(String, Int32)
    case pathTooLong(String)
    case timedOut(waitingFor: String, received: [String])

    var description: String {
        switch self {
        case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
        case .pathTooLong(let path): "socket path too long: \(path)"
        case .timedOut(let assignment, let received): "no \(assignment) arrived; received \(received)"
        }
    }
}
