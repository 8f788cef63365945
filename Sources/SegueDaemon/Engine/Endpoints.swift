import Foundation
import Glibc

/// Endpoint chores around binding: ipc socket files get mode 0660 in a 0750 directory (DESIGN.md §6),
/// and tcp endpoints beyond loopback are recognised so the daemon can warn when CURVE is off.
enum Endpoints {
    /// The filesystem path of an `ipc://` endpoint.
    static func ipcPath(_ endpoint: String) -> String? {
        guard endpoint.hasPrefix("ipc://") else { return nil }
        return String(endpoint.dropFirst("ipc://".count))
    }

    /// Creates an ipc endpoint's directory with mode 0750 when missing.
    static func prepare(_ endpoint: String) throws {
        guard let path = ipcPath(endpoint), !path.hasPrefix("@") else { return }
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

    /// Whether a tcp endpoint binds anything other than a loopback address.
    static func isNonLoopbackTCP(_ endpoint: String) -> Bool {
        guard endpoint.hasPrefix("tcp://") else { return false }
        var host = String(endpoint.dropFirst("tcp://".count))
        if let colon = host.lastIndex(of: ":") { host = String(host[..<colon]) }
        if host.hasPrefix("[") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" || host == "::1" || host.hasPrefix("127.") || host.hasPrefix("::ffff:127.") {
            return false
        }
        return true
    }
}
