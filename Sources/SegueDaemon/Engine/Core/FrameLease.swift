import SegueCore
import SegueStore

/// How far ticks may be published: a frame is ticked only once the log holds a lease past it.
///
/// A restarted daemon, or one that takes a shard over, starts its frames after the lease, so it never
/// publishes other ticks for frames subscribers already saw, and never places a new event in one: not
/// when `CLOCK_REALTIME` stepped back across the restart, nor when the new leader's clock runs behind
/// the old one's. Without it, ticks that were published but not logged were known only to the dead
/// daemon. A lease covers `span` frames and is renewed half a span before it runs out, so a write is
/// waited for only by the first frame after an idle stretch.
struct FrameLease: Equatable {
    /// Frames granted per write.
    let span: Int64
    /// Ticks may be published through this frame: the lease the log holds.
    private(set) var durable: Int64
    /// The end of a write in flight.
    private(set) var asked: Int64?
    /// After a failed write, the next is not asked for before this frame.
    private var retryAt: Int64 = .min
    /// The last write failed (its failure is logged once, and its recovery).
    private(set) var failing = false
    /// Bumped by `revoke`: a write asked for before it covers what was led then, not now.
    private(set) var generation = 0

    init(span: Int64, durable: Int64 = -1) {
        self.span = span
        self.durable = durable
    }

    /// The end of a new lease to write, when frames through `frame` are about to be published and
    /// the lease runs out within half a span of it (nil: none due, or one is in flight).
    mutating func ask(through frame: Int64) -> Int64? {
        guard asked == nil, frame >= retryAt, frame + span / 2 > durable else { return nil }
        asked = max(frame, durable) + span
        return asked
    }

    /// The write of `end`, asked for in this `generation` (the caller checks), is durable (or,
    /// `saved: false`, failed at `frame`: asked again half a span later, since the store is likely
    /// failing every write).
    mutating func settle(_ end: Int64, saved: Bool, at frame: Int64) {
        if asked == end { asked = nil }
        failing = !saved
        if saved {
            durable = max(durable, end)
        } else {
            retryAt = frame + span / 2
        }
    }

    /// Takes back the lease past `frame` (a shard joined: the rows written so far do not name it;
    /// `.max` when one was lost: what is written stays good for the others); a write in flight is
    /// forgotten, and frames past `frame` wait for a new one, asked for at once: a failure before,
    /// such as a write the shard's fence refused, was under the old leadership.
    mutating func revoke(after frame: Int64) {
        durable = min(durable, frame)
        asked = nil
        retryAt = .min
        generation += 1
    }

    /// The frame at whose instant the loop must wake to tick (or to ask for the lease that lets it)
    /// after `closed`, or nil when only a write in flight can let it go on (its completion wakes
    /// the loop). After a failed write: not before the retry.
    func wakeFrame(after closed: Int64) -> Int64? {
        if closed < durable { return closed + 1 }
        if asked != nil { return nil }
        return max(closed + 1, retryAt)
    }

    /// A lease found in the log at start or at a shard's takeover.
    mutating func found(_ end: Int64) { durable = max(durable, end) }

    // MARK: In the log (`FrameLeaseRows`)

    /// The lease the log holds for the whole log (`shard` nil), or the furthest of `shard`'s and the
    /// whole log's (one daemon may have led it before); nil if none.
    static func read(from store: any EngineLogReading, shard: Int?) throws(StoreError) -> Int64? {
        let whole = try store.snapshot(of: FrameLeaseRows.name(shard: nil), atOrBefore: .max).flatMap(end)
        guard let shard else { return whole }
        let own = try store.snapshot(of: FrameLeaseRows.name(shard: shard), atOrBefore: .max).flatMap(end)
        return [own, whole].compactMap { $0 }.max()
    }

    /// The end of the lease a snapshot row holds, if it is a lease row (of a shard or not).
    static func end(_ row: Snapshot) -> Int64? {
        guard FrameLeaseRows.holds(row.navigator) else { return nil }
        return row.state["frame"]?.int64Value
    }
}
