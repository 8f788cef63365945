import Glibc

/// The socket file of an `ipc://` endpoint, looked at before binding it.
///
/// zmq_ipc(7): binding an ipc endpoint whose file exists replaces the file, even while another process
/// listens on it. That process keeps running, bound to a path that no longer leads to it: its peers can
/// never reach it again. So a process that binds one first asks whether someone answers there.
package enum IPCSocketFile {
    /// The filesystem path of an `ipc://` endpoint; `nil` for other transports and for Linux's
    /// abstract names (`ipc://@name`), which have no file to take.
    package static func path(of endpoint: String) -> String? {
        guard endpoint.hasPrefix("ipc://") else { return nil }
        let path = String(endpoint.dropFirst("ipc://".count))
        return path.hasPrefix("@") ? nil : path
    }

    /// True when another process listens on `endpoint`'s socket file (a connect to it succeeds). A
    /// stale file, left by a process that was killed, is not in use and is fine to replace.
    package static func isInUse(_ endpoint: String) -> Bool {
        guard let path = path(of: endpoint) else { return false }
        return isListening(path)
    }

    /// What stands at `path` when it is not a socket ("a regular file", "a directory"), or nil when
    /// nothing does or a socket does. libzmq unlinks whatever the path names before it binds, so an
    /// endpoint written over a data file or a config would delete it: the binder refuses instead.
    package static func nonSocket(at path: String) -> String? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        switch status.st_mode & S_IFMT {
        case S_IFSOCK: return nil
        case S_IFREG: return "a regular file"
        case S_IFDIR: return "a directory"
        case S_IFLNK: return "a symbolic link"
        case S_IFIFO: return "a FIFO"
        default: return "a device file"
        }
    }

    /// Why binding `endpoint` would destroy what is at its path, as a sentence that follows the
    /// endpoint; nil when binding is safe in that respect.
    package static func refusal(_ endpoint: String) -> String? {
        guard let path = path(of: endpoint), let what = nonSocket(at: path) else { return nil }
        return "names \(what), not a socket: binding would delete it (libzmq replaces whatever is at an ipc "
            + "path); choose a path where nothing else lives"
    }

    /// True when a connect to the Unix socket at `path` succeeds.
    package static func isListening(_ path: String) -> Bool {
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

    /// The socket file a bind made, known by its inode. libzmq unlinks it only when its listener is torn
    /// down, which a process that exits without `zmq_ctx_term` never waits for: the binder removes it
    /// at stop, unless the path has since led to another file (another process's bind).
    package struct Bound: Sendable {
        package let path: String
        private let device: UInt64
        private let inode: UInt64

        /// The socket file `endpoint` names, right after binding it; nil for other transports,
        /// abstract names, and a path where no socket is.
        package init?(endpoint: String) {
            guard let path = IPCSocketFile.path(of: endpoint), let (device, inode) = Self.socketIdentity(path) else {
                return nil
            }
            (self.path, self.device, self.inode) = (path, device, inode)
        }

        /// Unlinks the file if it is still the one bound.
        package func remove() {
            guard let (device, inode) = Self.socketIdentity(path), device == self.device, inode == self.inode else {
                return
            }
            unlink(path)
        }

        private static func socketIdentity(_ path: String) -> (UInt64, UInt64)? {
            var status = stat()
            guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK else { return nil }
            return (UInt64(status.st_dev), UInt64(status.st_ino))
        }
    }
}
