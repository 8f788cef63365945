import Foundation
import Glibc
import SegueWire

/// Endpoint chores around binding: ipc socket files get mode 0660 in a 0750 directory (docs/reliability.md, "Security
/// model"). (Non-loopback tcp without CURVE is warned about from the config: `DaemonConfig.warnings`.)
enum Endpoints {
    /// Another process already listens on an ipc endpoint: binding it anyway would take the socket
    /// file from under that process (libzmq replaces the file), cutting off its clients for good.
    struct InUse: Error, CustomStringConvertible {
        let endpoint: String
        var description: String {
            "\(endpoint) is in use: another process (another segued?) listens on it. Binding would take the "
                + "socket file from it and cut its clients off; stop that process or choose another endpoint."
        }
    }

    /// An ipc endpoint's path names a file that is not a socket, which binding would delete.
    struct NotASocket: Error, CustomStringConvertible {
        let endpoint: String
        let refusal: String
        var description: String { "\(endpoint) \(refusal)." }
    }

    /// Creates an ipc endpoint's directory with mode 0750 when missing, and refuses an ipc endpoint
    /// some process listens on (a stale socket file, left by a killed process, is fine to replace) or
    /// whose path names something other than a socket (the config check said so already, unless the
    /// file came since).
    static func prepare(_ endpoint: String) throws {
        guard let path = IPCSocketFile.path(of: endpoint) else { return }
        if let refusal = IPCSocketFile.refusal(endpoint) { throw NotASocket(endpoint: endpoint, refusal: refusal) }
        if IPCSocketFile.isListening(path) { throw InUse(endpoint: endpoint) }
        let directory = (path as NSString).deletingLastPathComponent
        guard !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) else { return }
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
    }

    /// Gives a bound ipc socket file mode 0660: the owner and its group may connect, no one else.
    static func restrict(_ endpoint: String) throws {
        guard let path = IPCSocketFile.path(of: endpoint) else { return }
        guard chmod(path, 0o660) == 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
    }
}
