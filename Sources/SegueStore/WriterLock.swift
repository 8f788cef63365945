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
///
/// The lock file is removed only by a holder (`removeLog(at:)`), and a lock taken on a file that was
/// removed meanwhile is taken again on the one at the path: two holders of two files would be two
/// writers.
package final class WriterLock {
    let path: String
    let fd: Int32

    /// Takes the lock for the log at `logPath`, writing this process's pid into the lock file.
    package init(logPath: String) throws(StoreError) {
        path = logPath + ".lock"
        var fd = try Self.lockedFile(path, logPath: logPath)
        // Locked a file its holder removed before letting go: the next writer locks the new one.
        var tries = 1
        while !Self.isAtPath(fd, path) {
            flock(fd, LOCK_UN)
            close(fd)
            guard tries < 8 else {
                throw StoreError(
                    kind: .io, message: "Cannot lock \(path): it was removed and made again 8 times while locking it.")
            }
            tries += 1
            fd = try Self.lockedFile(path, logPath: logPath)
        }
        self.fd = fd
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    }

    /// Removes the empty log at `logPath` (its database, WAL, shared memory and lock files) holding
    /// its lock, the lock file last; nothing when another process holds the lock or the log holds
    /// events (another writer's, made and filled since the caller looked). Whether it removed them.
    package static func removeLog(at logPath: String) -> Bool {
        guard let lock = try? WriterLock(logPath: logPath), !holdsEvents(logPath) else { return false }
        withExtendedLifetime(lock) {
            for suffix in ["", "-wal", "-shm"] { unlink(logPath + suffix) }
            unlink(lock.path)
        }
        return true
    }

    /// Whether the database at `path` has an event; false when there is none or no events table yet.
    private static func holdsEvents(_ path: String) -> Bool {
        guard FileManager.default.fileExists(atPath: path),
            let database = try? Database(path: path, create: false)
        else { return false }
        return ((try? database.scalarInt("SELECT EXISTS (SELECT 1 FROM events)")) ?? 0) != 0
    }

    private static func isAtPath(_ fd: Int32, _ path: String) -> Bool {
        var open = stat()
        var named = stat()
        return fstat(fd, &open) == 0 && stat(path, &named) == 0 && open.st_dev == named.st_dev
            && open.st_ino == named.st_ino
    }

    /// The lock file at `path`, opened (created if need be) and locked.
    private static func lockedFile(_ path: String, logPath: String) throws(StoreError) -> Int32 {
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
        return fd
    }

    // Unlocked before the close: a `flock` belongs to the open file description, which a child
    // spawned by another thread shares until its exec closes its copy (O_CLOEXEC), and which would
    // hold the lock that long after this close. An unlock through any copy releases it for all.
    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }

    /// The pid of the process that holds the lock of the log at `logPath`, found in `/proc/locks`
    /// without taking the lock (a probe that took it, however briefly, could make a segued starting
    /// at that moment fail); nil when nobody holds it.
    static func holder(ofLog logPath: String) -> Int32? {
        var status = stat()
        guard stat(logPath + ".lock", &status) == 0,
            let table = try? String(contentsOfFile: "/proc/locks", encoding: .utf8)
        else { return nil }
        // "1: FLOCK  ADVISORY  WRITE 4242 fd:01:1234567 0 EOF": the device's major and minor in hex
        // (glibc's gnu_dev_major and gnu_dev_minor), then the inode. A waiter's line has "->" after the
        // number, which shifts its fields.
        let device = UInt64(status.st_dev)
        let major = (device >> 8) & 0xfff | (device >> 32) & ~0xfff
        let minor = device & 0xff | (device >> 12) & ~0xff
        let file = String(format: "%02llx:%02llx:%llu", major, minor, UInt64(status.st_ino))
        for line in table.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 6, fields[1] == "FLOCK", fields[3] == "WRITE", fields[5] == file,
                let pid = Int32(fields[4])
            else { continue }
            return pid
        }
        return nil
    }

    /// The pid the holder wrote, when it is there to read.
    private static func holder(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 15, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
