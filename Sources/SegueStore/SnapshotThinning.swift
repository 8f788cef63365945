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
