/// Walks the `commands` table's ids in key order, a page at a time (one thing, one thread).
///
/// Each page is its own read transaction, resumed after the last id of the one before, so the walk
/// never pins an old snapshot of the WAL for long (a long reader keeps a checkpoint from resetting
/// the WAL). An id inserted during the walk may be missed if it sorts before the page being read;
/// the caller notes the ids it writes itself. Ids are never deleted, so every id stored when the walk
/// began is passed exactly once.
///
/// It offers no count: `SELECT COUNT(*)` on the WITHOUT ROWID `commands` table reads every leaf page
/// (replies included) in one read transaction, as much I/O as the walk itself; a caller that needs
/// the number counts during the walk.
package final class CommandIDReader {
    private let reader: LogReader

    /// A read connection of its own on the store at `path`, waiting up to `busyTimeoutMilliseconds`
    /// for a lock (the store's own setting).
    init(path: String, busyTimeoutMilliseconds: Int32) throws(StoreError) {
        reader = try LogReader(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
    }

    /// Calls `body` with the UTF-8 bytes of every stored id (valid during the call only), `pageSize`
    /// per read transaction, while `body` returns true. Returns false when `body` stopped the walk.
    @discardableResult
    package func walk(pageSize: Int = 4096, _ body: (UnsafeRawBufferPointer) -> Bool) throws(StoreError) -> Bool {
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
