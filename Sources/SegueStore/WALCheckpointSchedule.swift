/// The writer's checkpoint decisions, taken after each commit from the WAL's length (`WALCheckpointer`
/// has the policy): ask the background thread for a pass each time `threshold` more frames are in the
/// WAL; after a pass, once the WAL is `restartAt` long, copy the remainder so the WAL restarts at the
/// next write; past `limit`, the backstop.
struct WALCheckpointSchedule {
    /// What a decision asks of the writer beyond the cheap part (asking the background thread for a
    /// pass, which the decision does itself).
    enum Copy: Sendable {
        case none
        /// A pass ended and the WAL is `restartAt` long: copy the remainder so the WAL restarts (two
        /// syncs).
        case catchUp
        /// The WAL is past `limit`: wait for a running pass, then copy the rest (the backstop).
        case forced
    }

    /// The WAL's length when the last background pass was asked for: what it copies (0 once the WAL
    /// has restarted).
    private var checkpointedUpTo: Int32 = 0
    /// A pass was asked for and the writer has not yet seen it finish.
    private var passPending = false
    /// `checkpointer.passes` when the writer last looked.
    private var passesSeen = 0

    /// A new connection's WAL hook counts from 0: not a restart.
    mutating func connectionOpened() { checkpointedUpTo = 0 }

    /// The decision for a WAL of `frames` frames, asking `checkpointer` for a pass when one is due.
    mutating func decide(frames: Int32, _ checkpointer: WALCheckpointer) -> Copy {
        // Shorter than at the last request: the WAL restarted (a pass copied everything between two
        // commits, or a catch-up did).
        if frames < checkpointedUpTo {
            checkpointedUpTo = 0
            checkpointer.restarts.add(1, ordering: .relaxed)
        }
        if frames >= checkpointer.limit { return .forced }
        if passPending {
            let finished = checkpointer.passes.load(ordering: .acquiring)
            guard finished != passesSeen else { return .none }
            passesSeen = finished
            passPending = false
            // Copying the last frames costs two syncs (the WAL's and the database file's), so the WAL
            // is restarted this way only once it is `restartAt` long, not after every pass: a quarter
            // as many commits pay it as with a restart per pass.
            return checkpointedUpTo > 0 && frames >= checkpointer.restartAt ? .catchUp : .none
        }
        if frames - checkpointedUpTo >= checkpointer.threshold {
            checkpointedUpTo = frames
            passPending = true
            checkpointer.request()
        }
        return .none
    }
}
