import SegueCore

/// Which of a navigator's older snapshots a checkpoint deletes, so that they do not grow with the
/// log as fast as the events do (each checkpoint writes every navigator changed since the last one,
/// whole).
///
/// A navigator keeps its `recent` newest snapshots. Older than those, a snapshot is kept only when
/// it is at least `spacing` seqs after the one kept before it: time travel (`state` with `at`, a
/// `history` page's digests) into the older log folds at most that span of the navigator's events
/// onto a snapshot. Start-up reads only the newest, which is always kept.
///
/// Each snapshot is judged once, by the checkpoint that pushes it out of the recent ones, against
/// the kept one before it: earlier decisions are never revisited, so the rows kept do not depend on
/// when checkpoints ran. Snapshots saved before thinning existed stay where they are.
package struct SnapshotThinning: Sendable, Equatable {
    package var recent: Int
    package var spacing: Int64

    package init(recent: Int, spacing: Int64) {
        precondition(recent >= 1 && spacing >= 1)
        self.recent = recent
        self.spacing = spacing
    }

    /// For checkpoints every `every` events: the 8 newest snapshots of a navigator, then one per
    /// 32 checkpoints' worth of the log.
    package init(checkpointEvery every: Int) {
        self.init(recent: 8, spacing: 32 * Int64(max(1, every)))
    }

    /// How many of a navigator's newest snapshot seqs `dropped` needs.
    package var window: Int { recent + 2 }

    /// The seq to delete, if any, given the navigator's newest snapshot seqs after the checkpoint,
    /// newest first (up to `window` of them): the one just pushed out of the recent ones, when it
    /// is less than `spacing` after the kept one before it.
    package func dropped(newestFirst seqs: [Int64]) -> Int64? {
        guard seqs.count >= window else { return nil }
        let leaving = seqs[recent]
        return leaving - seqs[recent + 1] < spacing ? leaving : nil
    }

    /// Whether a snapshot row of `navigator` is thinned at all: not the rows whose name begins with
    /// `#` (the checkpoint marker, the frame leases), which are not navigators' states.
    package static func thins(_ navigator: String) -> Bool { !navigator.hasPrefix("#") }
}

/// One pass over the snapshots no checkpoint judged (those a build before 0.3.0 saved, or a
/// PostgreSQL role without `DELETE` on `snapshots`), judging each as the checkpoint that pushed it
/// out of the recent ones would have. Rows come in key order, (navigator, seq), a part at a time;
/// the pass keeps where it is between parts. Judging a row a checkpoint already kept keeps it again,
/// so the pass can be run over any log, and run again after it stopped half way.
package struct SnapshotBacklog: Sendable {
    /// The row that records whether a pass went through the whole log since a checkpoint last left
    /// snapshots unjudged: `{"done": true, "read": …, "deleted": …}` after a pass, `{"done": false}`
    /// from a daemon whose role may not delete.
    package static let marker = "#thinned"

    /// The marker a daemon that may not delete leaves.
    package static let pending = Snapshot(navigator: marker, seq: 0, revision: 0, state: ["done": false])

    /// The marker of this pass, done.
    package var marker: Snapshot {
        Snapshot(
            navigator: Self.marker, seq: 0, revision: 0,
            state: ["done": true, "read": .int(Int64(read)), "deleted": .int(Int64(deleted))])
    }

    package let thinning: SnapshotThinning
    /// The last row judged: the next part reads after it.
    package private(set) var navigator = ""
    package private(set) var seq = Int64.min
    /// The seq of the last snapshot of `navigator` the pass kept; nil before its first.
    private var kept: Int64?
    package private(set) var read = 0
    package private(set) var deleted = 0
    /// Every row has been judged.
    package private(set) var done = false

    package init(_ thinning: SnapshotThinning) { self.thinning = thinning }

    /// Whether to delete the row (`navigator`, `seq`), the next in key order. `recentFrom` is the seq of
    /// the navigator's `recent`-th newest snapshot (nil: it has fewer): rows from there on are the
    /// recent ones, which no checkpoint has judged yet.
    package mutating func deletes(_ navigator: String, _ seq: Int64, recentFrom: Int64?) -> Bool {
        if navigator != self.navigator { kept = nil }
        self.navigator = navigator
        self.seq = seq
        read += 1
        guard SnapshotThinning.thins(navigator), let recentFrom, seq < recentFrom else { return false }
        if let kept, seq - kept < thinning.spacing {
            deleted += 1
            return true
        }
        kept = seq
        return false
    }

    /// The query of a part, on either backend (`parameter` spells the n-th parameter, `?n` or `$n`):
    /// with 1, 2 the position, 3 the rows, 4 `recent - 1`, each row of a navigator below the leases'
    /// seq comes with the seq its recent ones start at (`recentFrom`, null when it has fewer).
    package static func partQuery(_ parameter: (Int) -> String) -> String {
        """
        SELECT s.navigator, s.seq, (
            SELECT r.seq FROM snapshots AS r
            WHERE r.navigator = s.navigator AND r.seq < 9223372036854775807
            ORDER BY r.seq DESC LIMIT 1 OFFSET \(parameter(4))
        ) FROM snapshots AS s
        WHERE (s.navigator, s.seq) > (\(parameter(1)), \(parameter(2))) AND s.seq < 9223372036854775807
        ORDER BY s.navigator, s.seq LIMIT \(parameter(3))
        """
    }

    /// A part read no row: the pass is over.
    package mutating func finish() { done = true }
}
