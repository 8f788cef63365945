import Foundation
import SegueCore

/// A read-only view of a store, for tools that must not change it: `segue export`, `verify` and
/// `replay` read the log of a data dir that a segued may be running on, perhaps a segued of another
/// version.
///
/// `EventStore` opens a write connection and migrates the schema in place, after which an older
/// segued refuses the file; an upgrade's "take an export first" would then break the daemon it was
/// meant to protect. This opens only a `query_only` read connection and reads any schema version up
/// to this build's (the events table has not changed since version 1).
package final class EventLog: EventSequence, CommandSequence, @unchecked Sendable {
    package let path: String
    /// The file's schema version (`PRAGMA user_version`), left as it was.
    package let schemaVersion: Int64
    private let lock = NSLock()
    private let reader: LogReader

    package init(path: String, busyTimeout: Duration = .seconds(2)) throws(StoreError) {
        self.path = path
        let milliseconds =
            busyTimeout.components.seconds * 1000 + busyTimeout.components.attoseconds / 1_000_000_000_000_000
        reader = try LogReader(path: path, busyTimeoutMilliseconds: Int32(clamping: milliseconds))
        schemaVersion = try reader.schemaVersion()
        guard (1...Schema.currentVersion).contains(schemaVersion) else {
            throw StoreError(
                kind: .invalidData,
                message: schemaVersion == 0
                    ? "\(path) is not a Segue event store (it has no schema)."
                    : "The event store at \(path) has schema version \(schemaVersion), newer than this build's "
                        + "\(Schema.currentVersion). \(Self.upgradeAdvice)")
        }
    }

    /// What to do about a log of a newer schema, said to whoever reads it (`segue`, or `segued
    /// --check-config`): that program is older than the segued that wrote the log.
    package static var upgradeAdvice: String {
        let program = ProcessInfo.processInfo.processName
        return "This \(program) is older than the segued that wrote it; upgrade \(program)."
    }

    package func forEachEvent(after seq: Int64 = 0, _ body: (EventRecord) throws(StoreError) -> Void)
        throws(StoreError)
    {
        try forEachEvent(after: seq, through: .max, body)
    }

    /// Every event with seq in `(seq, last]`, in seq order: a reader that needs only the start of
    /// a long log stops there.
    ///
    /// A page at a time, each its own read: one statement held open across a slow body (an export
    /// into a pager, a replay paced in real time) would hold a snapshot that keeps a running segued's
    /// WAL from starting over. The log only grows, so the pages up to the end seen first read what
    /// that snapshot held.
    package func forEachEvent(
        after seq: Int64, through last: Int64, _ body: (EventRecord) throws(StoreError) -> Void
    ) throws(StoreError) {
        let end = min(last, try lastSeq())
        var after = seq
        while after < end {
            let page = try self.page(after: after, through: end)
            guard !page.isEmpty else { return }
            for row in page {
                let event = try row.get()
                try body(event)
                after = event.seq
            }
        }
    }

    static let pageSize = 1000

    private func page(after seq: Int64, through last: Int64) throws(StoreError) -> [Result<EventRecord, StoreError>] {
        lock.lock()
        defer { lock.unlock() }
        return try reader.page(after: seq, through: last, limit: Self.pageSize)
    }

    /// The log's last seq, 0 when empty; read without decoding the event (which may be damaged).
    package func lastSeq() throws(StoreError) -> Int64 {
        lock.lock()
        defer { lock.unlock() }
        return try reader.lastSeq()
    }

    package func commandRecords(after id: String?, limit: Int) throws(StoreError) -> [CommandRecord] {
        lock.lock()
        defer { lock.unlock() }
        return try reader.commandRecords(after: id, limit: limit)
    }

    /// The log's first event (the creation of its first navigator), nil for an empty log.
    package func firstEvent() throws(StoreError) -> EventRecord? {
        lock.lock()
        defer { lock.unlock() }
        return try reader.events(after: 0, navigator: nil, limit: 1).first
    }

    /// The process that writes the log (a segued, an import) as words that follow "open for writing
    /// by", or nil when none does.
    package func writer() -> String? {
        guard let pid = WriterLock.holder(ofLog: path) else { return nil }
        let name = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(
            in: .whitespacesAndNewlines)
        return "process \(pid)" + (name.map { " (\($0))" } ?? "")
    }

    /// The log's last event, nil for an empty log.
    package func lastEvent() throws(StoreError) -> EventRecord? {
        lock.lock()
        defer { lock.unlock() }
        return try reader.lastEvent()
    }

    /// SQLite's full `PRAGMA integrity_check`: the problems found, empty when the file is sound.
    package func integrityCheck() throws(StoreError) -> [String] {
        lock.lock()
        defer { lock.unlock() }
        return try reader.integrityCheck()
    }
}
