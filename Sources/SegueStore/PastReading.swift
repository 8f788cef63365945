import SegueCore

/// Reads of the log's past: a page of events, a navigator's tail, the snapshot to fold it onto.
///
/// `EventStoring.pastReader()` gives one on a connection of its own, for a thread that must neither
/// wait behind the store's shared reader nor hold it up: the daemon answers `history` on one, beside
/// its frame loop. What it reads is committed and never changes (the log only grows), so a fold over
/// several of its reads is consistent without a transaction around them.
package protocol PastReading: AnyObject {
    /// Up to `limit` events with seq above `seq`, in seq order, optionally of one navigator.
    func events(after seq: Int64, navigator: String?, limit: Int) throws(StoreError) -> [EventRecord]
    /// The navigator's events with seq in `(after, upTo]`: the tail to fold onto a snapshot.
    func events(of navigator: String, after seq: Int64, upTo last: Int64) throws(StoreError) -> [EventRecord]
    /// The newest snapshot of `navigator` taken at or before `seq`.
    func snapshot(of navigator: String, atOrBefore seq: Int64) throws(StoreError) -> Snapshot?
}

extension LogReader: PastReading {}
