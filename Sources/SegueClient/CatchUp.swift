import SegueCore

/// The bookkeeping of the Clone pattern (ZeroMQ guide, ch. 5; docs/protocol.md, "Late joiners (the Clone pattern)"),
/// without sockets: which revision of each navigator a client holds, and what to do with the next event.
///
/// After a snapshot at revision R, events up to R are duplicates; R+1 applies; anything higher means
/// events were lost in between (a slow joiner, a dropped message under the publisher's high-water
/// mark), to be fetched with `history` after the last seq seen for that navigator.
///
/// A client that follows every navigator (`following(everyNavigatorFrom:)`) also holds the log's
/// position: every event up to it was seen, so a later event with a seq beyond the next one reveals
/// a loss even in navigators that then stay quiet.
///
/// A loss at the very end (the last events of a navigator dropped, nothing after them) shows no gap;
/// heartbeats reveal it: every event up to a heartbeat's `seq` was published before the heartbeat,
/// so a heartbeat beyond what the client has seen means it must ask (`heartbeat(seq:)`).
public struct CatchUp: Equatable, Sendable {
    /// The last revision applied, per navigator.
    public private(set) var revisions: [String: Int64] = [:]
    /// The seq of the last event applied (or of the snapshot), per navigator: where `history` resumes.
    public private(set) var seqs: [String: Int64] = [:]
    /// Following every navigator: every event up to this seq has been offered. nil when following
    /// named navigators, whose events do not number the log without gaps.
    public private(set) var position: Int64?
    /// Following named navigators: the last heartbeat seq a `history` check of each covered (the
    /// position stands for it when following every navigator).
    public private(set) var checked: Int64 = 0

    /// Follows named navigators (snapshots come with `snapshot`).
    public init() {}

    /// Follows every navigator from log position `seq` (`list`'s `seq`, taken before the snapshots).
    public static func following(everyNavigatorFrom seq: Int64) -> CatchUp {
        var catchUp = CatchUp()
        catchUp.position = seq
        return catchUp
    }

    public enum Verdict: Equatable, Sendable {
        /// The next event: it was recorded as applied.
        case apply
        /// Already covered by the snapshot or an earlier event.
        case duplicate
        /// Events are missing before this one: fetch `history(navigator:, after:)`, offer each, then
        /// offer this event again.
        case gap(navigator: String, after: Int64)
        /// Following every navigator, events are missing before this one: fetch `history(after:)`
        /// for every navigator, offer each, then offer this event again.
        case logGap(after: Int64)
    }

    /// What a heartbeat asks of the client.
    public enum Check: Equatable, Sendable {
        /// Nothing can be missing.
        case none
        /// Events may be missing at the end of the named navigators: ask `history(navigator:, after:)`
        /// of each from its `seqs` entry.
        case navigators
        /// Following every navigator, events after this seq are missing: ask `history(after:)`.
        case log(after: Int64)
        /// The heartbeat's seq is below what the client knows (`known`): either it was sent before
        /// the reply the client learned that from (it waited in the subscription's queue), or the
        /// daemon's log went back (restored from a backup). `ping` tells: a log that ends before
        /// `known` means what the client holds no longer describes it; start over from new snapshots.
        case rewound
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
        if let position {
            if event.seq <= position { return .duplicate }
            if event.seq > position + 1 { return .logGap(after: position) }
        }
        let last = revisions[event.navigator] ?? 0
        // Not the log's position: the event is offered again once its navigator's gap is filled.
        if event.revision > last + 1 { return .gap(navigator: event.navigator, after: seqs[event.navigator] ?? 0) }
        if position != nil {
            // The next event of the log, applied or already in its navigator's snapshot.
            position = event.seq
        }
        if event.revision <= last { return .duplicate }
        revisions[event.navigator] = event.revision
        seqs[event.navigator] = event.seq
        return .apply
    }

    /// Judges a heartbeat carrying the daemon's durable `seq`. Following named navigators, a check
    /// is asked for whenever the log moved past the last check (a heartbeat cannot tell whose events
    /// moved it), so at most once per heartbeat; `checked(through:)` records the answer.
    public func heartbeat(seq: Int64) -> Check {
        if seq < known { return .rewound }
        if let position { return seq > position ? .log(after: position) : .none }
        return seq > checked ? .navigators : .none
    }

    /// The log position the client knows the daemon's log reaches: the position, or the newest of the
    /// named navigators' snapshots, events and checks.
    public var known: Int64 { position ?? max(checked, seqs.values.max() ?? 0) }

    /// Records that a `history` check asked after a heartbeat at `seq` covered every event up to it.
    public mutating func checked(through seq: Int64) {
        checked = max(checked, seq)
    }
}
