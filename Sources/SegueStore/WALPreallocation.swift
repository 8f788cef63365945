import Foundation

/// Gives a short WAL file the length it will grow to anyway, written out as zeros.
///
/// A sync that also extends a file costs about twice one that overwrites (ext4 on this machine, 8 KiB
/// per commit: 257–289 µs p50 appending against 122–141 µs into bytes already written; a 4 KiB
/// rewrite is 126–128 µs): the new length and the new blocks go to the file system's journal with
/// the data. The store keeps its WAL across restarts (`Database.keepWALFile`) and the WAL restarts
/// from its start once `WALCheckpointer.restartAt` frames are checkpointed, so only a new data
/// directory, or one whose WAL someone deleted, grows its WAL, but then for the first ~2,000
/// commands. Writing the zeros once at open, and syncing them, moves that cost out of the commands.
///
/// Only bytes past the file's end are written, at the store's open, holding SQLite's write lock (so
/// no connection, in this process or another, appends frames meanwhile): SQLite never reads there
/// before writing a frame itself, and a recovery that meets zeros sees a frame that fails its
/// checksum, the end of the log (as it does for the old frames a restarted WAL leaves behind). `fallocate` would not do: its
/// blocks are "unwritten" extents, and the first write into each one is a journaled change again.
enum WALPreallocation {
    /// The WAL length (bytes) to reach: `frames` frames of `pageSize` plus the 32-byte header.
    static func length(frames: Int32, pageSize: Int) -> Int {
        32 + Int(frames) * (pageSize + 24)
    }

    /// Extends the file at `path` with zeros to `length` bytes and syncs it; returns the bytes added
    /// (0 when it is already that long or missing). On a failure (a full disk) the file is cut back
    /// to its old length and the error is thrown: the WAL then grows as SQLite writes, as it would
    /// without this.
    @discardableResult
    static func extend(_ path: String, to length: Int) throws(StoreError) -> Int {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        // No WAL yet: SQLite creates it at the first write; nothing of ours to extend.
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw failure("fstat", path) }
        let start = Int(status.st_size)
        guard start < length else { return 0 }
        let chunk = [UInt8](repeating: 0, count: 1 << 20)
        var offset = start
        while offset < length {
            let count = min(chunk.count, length - offset)
            let written = chunk.withUnsafeBytes { pwrite(fd, $0.baseAddress, count, off_t(offset)) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                let error = failure("pwrite", path)
                _ = ftruncate(fd, off_t(start))
                throw error
            }
            offset += written
        }
        guard fdatasync(fd) == 0 else {
            let error = failure("fdatasync", path)
            _ = ftruncate(fd, off_t(start))
            throw error
        }
        return length - start
    }

    private static func failure(_ call: String, _ path: String) -> StoreError {
        let code = errno
        return StoreError(
            kind: .io,
            message: "\(call) of \(path) failed while preallocating the WAL: \(String(cString: strerror(code)))")
    }
}
