import SegueCore

/// The bookkeeping of the Clone pattern (ZeroMQ guide, ch. 5; DESIGN.md §4 "late joiners"), without
/// sockets: which revision of each navigator a client holds, and what to do with the next event.
///
/// After a snapshot at revision R, events up to R are duplicates; R+1 applies; anything higher means
/// events were lost in between (a slow joiner, a dropped message under the publisher's high-water
/// mark), to be fetched with `history` after the last seq seen for that navigator.
public struct CatchUp: Equatable, Sendable {
    /// The last revision applied, per navigator.
    public private(set) var revisions: [String: Int64] = [:]
    /// The seq of the last event applied (or of the snapshot), per navigator: where `history` resumes.
    public private(set) var seqs: [String: Int64] = [:]

    public init() {}

    public enum Verdict: Equatable, Sendable {
        /// The next event: it was recorded as applied.
        case apply
        /// Already covered by the snapshot or an earlier event.
        case duplicate
        /// Events are missing before this one: fetch `history(navigator:, after:)`, offer each, then
        /// offer this event again.
        case gap(navigator: String, after: Int64)
    }

    /// Records a `state` snapshot: the navigator is known up to `revision` (as of log position `seq`).
    public mutating func snapshot(navigator: String, revision: Int64, seq: Int64) {
        if revision >= (revisions[navigator] ?? 0) {
            revisions[navigator] = revision
            seqs[navigator] = seq
        }
    }

    /// Judges the next event of a navigator (one the client has not seen is at revision 0).
    public mutating func offer(_ event: EventRecord) -> Verdict {
        let last = revisions[event.navigator] ?? 0
        if event.revision <= last { return .duplicate }
        if event.revision > last + 1 { return .gap(navigator: event.navigator, after: seqs[event.navigator] ?? 0) }
        revisions[event.navigator] = event.revision
        seqs[event.navigator] = event.seq
        return .apply
    }
}
