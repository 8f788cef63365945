import Foundation
import SegueCore

/// Export and import as JSON Lines (jsonlines.org): one event per line, exactly the wire event body.
///
/// Because export writes `EventRecord.json` with the protocol's serializer and import stores what it
/// reads, export → import into a fresh store → export reproduces the file byte for byte. Only events
/// travel in the file: snapshots are derived data, and the stored command ids are not in it (`segue
/// migrate` copies them store to store, `CommandRecord`).
/// A log read in seq order: what an export needs, from a store or from a read-only `EventLog`.
package protocol EventSequence {
    func forEachEvent(after seq: Int64, _ body: (EventRecord) throws(StoreError) -> Void) throws(StoreError)
}

extension EventStore: EventSequence {}

extension EventSequence {
    /// Writes every event, in seq order, to the file at `path`, synced; returns the count. The file is
    /// written in place (truncated), so a FIFO or `/dev/null` stays what it is. `exclusive`: a new
    /// file only, never one that is there (a link included), for a temporary file in a shared directory.
    @discardableResult
    package func exportJSONLines(to path: String, exclusive: Bool = false) throws(StoreError) -> Int {
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (exclusive ? O_EXCL | O_NOFOLLOW : O_TRUNC)
        let descriptor = open(path, flags, 0o666)
        guard descriptor >= 0 else { throw Self.failure("create", path) }
        defer { close(descriptor) }
        let count = try exportJSONLines { bytes throws(StoreError) in
            var written = 0
            while written < bytes.count {
                let n = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, $0.count - written) }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { throw Self.failure("write", path) }
                written += n
            }
        }
        // A FIFO, a terminal or /dev/null has nothing to sync (fsync fails there with EINVAL).
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, fsync(descriptor) != 0 {
            throw Self.failure("sync", path)
        }
        return count
    }

    private static func failure(_ verb: String, _ path: String) -> StoreError {
        let code = errno
        return StoreError(
            kind: .io,
            message: "Cannot \(verb) the export file \(path): \(String(cString: strerror(code))) (errno \(code)).")
    }

    /// Hands every event, in seq order, as JSON Lines to `write`, about a megabyte at a time (a whole
    /// number of lines); returns the count.
    package func exportJSONLines(into write: ([UInt8]) throws(StoreError) -> Void) throws(StoreError) -> Int {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 20)
        var count = 0
        try forEachEvent(after: 0) { event throws(StoreError) in
            event.json.serialize(into: &buffer)
            buffer.append(UInt8(ascii: "\n"))
            count += 1
            if buffer.count >= 1 << 20 {
                try write(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        if !buffer.isEmpty { try write(buffer) }
        return count
    }
}

extension EventStore {
    /// Appends the events of the JSON Lines file at `path`, and `commands` with them, all or none, in
    /// one transaction, holding one part of the file at a time (`LogImport`); returns the count of
    /// events.
    @discardableResult
    package func importJSONLines(
        from path: String, commands: any CommandSequence, progress: @escaping (Int) -> Void
    ) throws(StoreError) -> Int {
        try withWriter { writer throws(StoreError) in
            try LogImport.run(path, commands: commands, into: writer, progress: progress)
        }
    }
}

extension LogWriter: ImportTransaction {}
