import Foundation
import Glibc

/// Endpoint chores around binding: ipc socket files get mode 0660 in a 0750 directory (DESIGN.md §6).
/// (Non-loopback tcp without CURVE is warned about from the config: `DaemonConfig.warnings`.)
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
}
