import Foundation

/// The one-writer rule of a log, across processes: an exclusive `flock(2)` on `<log>.lock`, held
/// from open to close by whoever appends (segued, `segue import`).
///
/// SQLite alone would let a second writer in: each takes the write lock per transaction, so two
/// daemons on one data dir both start, and each numbers events from its own idea of the log's end:
/// the second one's commits fail on `seq`, and its state no longer matches the log. The lock makes
/// the second one fail at open, with the first one's pid. The kernel drops it when its holder dies
/// (SIGKILL included), so a crash never leaves the log locked. Readers (export, verify, replay, an
/// operator's `sqlite3`) do not take it: WAL mode lets them read beside the writer.
final class WriterLock {
    let path: String
    let fd: Int32

    /// Takes the lock for the log at `logPath`, writing this process's pid into the lock file.
    init(logPath: String) throws(StoreError) {
        path = logPath + ".lock"
        // O_CLOEXEC: a child spawned by the holder must not inherit (and outlive it with) the lock.
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let code = errno
            // Under the unit's ProtectSystem=strict every directory but its own is read-only, on a
            // file system that is writable: the usual cause of EROFS for a data dir moved elsewhere.
            let hint =
                code == EROFS
                ? " Under systemd's ProtectSystem= (the packaged unit), add the data dir to ReadWritePaths= "
                    + "in a drop-in (systemctl edit segued)."
                : ""
            throw StoreError(
                kind: .io,
                message: "Cannot open the lock file \(path): \(String(cString: strerror(code))) (errno \(code)). "
                    + "The data dir must be writable.\(hint)")
        }
        var result: Int32
        repeat { result = flock(fd, LOCK_EX | LOCK_NB) } while result != 0 && errno == EINTR
        guard result == 0 else {
            let error = errno
            let holder = Self.holder(fd)
            close(fd)
            guard error == EWOULDBLOCK else {
                throw StoreError(
                    kind: .io, message: "Cannot lock \(path): \(String(cString: strerror(error))) (errno \(error)).")
            }
            throw StoreError(
                kind: .inUse,
                message: "The log \(logPath) is already open for writing by another process"
                    + (holder.map { " (pid \($0))" } ?? "")
                    + ": a segued on this data dir, or a segue import. Stop it first, or use another data dir; "
                    + "export, verify and replay can read the log meanwhile.")
        }
        self.fd = fd
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    }

    // Unlocked before the close: a `flock` belongs to the open file description, which a child
    // spawned by another thread shares until its exec closes its copy (O_CLOEXEC), and which would
    // hold the lock that long after this close. An unlock through any copy releases it for all.
    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }

    /// The pid the holder wrote, when it is there to read.
    private static func holder(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 15, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
