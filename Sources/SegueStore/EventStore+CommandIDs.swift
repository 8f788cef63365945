import Foundation

extension EventStore {
    /// A reader of every stored command id, on a read connection of its own: the daemon builds its
    /// filter of known ids from it in the background, without holding the store's shared read
    /// connection (history and state queries) for the length of the walk.
    public func commandIDs() throws(StoreError) -> CommandIDReader {
        try CommandIDReader(path: path)
    }
}

/// Walks the `commands` table's ids in key order, a page at a time (one thing, one thread).
///
/// Each page is its own read transaction, resumed after the last id of the one before, so the walk
/// never pins an old snapshot of the WAL for long (a long reader keeps a checkpoint from resetting
/// the WAL). An id inserted during the walk may be missed if it sorts before the page being read;
/// the caller notes the ids it writes itself. Ids are never deleted, so every id stored when the walk
/// began is passed exactly once.
public final class CommandIDReader {
    private let reader: LogReader

    init(path: String, busyTimeout: Duration = .seconds(2)) throws(StoreError) {
        let milliseconds =
            busyTimeout.components.seconds * 1000 + busyTimeout.components.attoseconds / 1_000_000_000_000_000
        reader = try LogReader(path: path, busyTimeoutMilliseconds: Int32(clamping: milliseconds))
    }

    /// How many ids are stored now.
    public func count() throws(StoreError) -> Int {
        Int(try reader.commandCount())
    }

    /// Calls `body` with the UTF-8 bytes of every stored id (valid during the call only), `pageSize`
    /// per read transaction, while `body` returns true. Returns false when `body` stopped the walk.
    @discardableResult
    public func walk(pageSize: Int = 4096, _ body: (UnsafeRawBufferPointer) -> Bool) throws(StoreError) -> Bool {
        precondition(pageSize > 0)
        var after: [UInt8]?
        var going = true
        while going {
            guard
                let last = try reader.forEachCommandID(
                    after: after, limit: pageSize, { bytes in if going { going = body(bytes) } })
            else { return true }
            after = last
        }
        return false
    }
}

@available(*, unavailable)
extension CommandIDReader: Sendable {}
