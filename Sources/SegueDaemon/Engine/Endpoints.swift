import Foundation
import Glibc

/// Endpoint chores around binding: ipc socket files get mode 0660 in a 0750 directory (docs/reliability.md, "Security
/// model"). (Non-loopback tcp without CURVE is warned about from the config: `DaemonConfig.warnings`.)
enum Endpoints {
    /// The filesystem path of an `ipc://` endpoint.
    static func ipcPath(_ endpoint: String) -> String? {
        guard endpoint.hasPrefix("ipc://") else { return nil }
        return String(endpoint.dropFirst("ipc://".count))
    }

    /// Another process already listens on an ipc endpoint: binding it anyway would take the socket
    /// file from under that process (libzmq replaces the file), cutting off its clients for good.
    struct InUse: Error, CustomStringConvertible {
        let endpoint: String
        var description: String {
            "\(endpoint) is in use: another process (another segued?) listens on it. Binding would take the "
                + "socket file from it and cut its clients off; stop that process or choose another endpoint."
        }
    }

    /// Creates an ipc endpoint's directory with mode 0750 when missing, and refuses an ipc endpoint
    /// some process listens on (a stale socket file, left by a killed process, is fine to replace).
    static func prepare(_ endpoint: String) throws {
        guard let path = ipcPath(endpoint), !path.hasPrefix("@") else { return }
        if isListening(path) { throw InUse(endpoint: endpoint) }
        let directory = (path as NSString).deletingLastPathComponent
        guard !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) else { return }
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
    }

    /// Gives a bound ipc socket file mode 0660: the owner and its group may connect, no one else.
    static func restrict(_ endpoint: String) throws {
        guard let path = ipcPath(endpoint), !path.hasPrefix("@") else { return }
        guard chmod(path, 0o660) == 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
    }

    /// True when a connect to the Unix socket at `path` succeeds.
    static func isListening(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
            buffer[bytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return result == 0
    }
}
