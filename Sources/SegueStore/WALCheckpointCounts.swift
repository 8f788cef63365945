/// How an open store has checkpointed its WAL (see `WALCheckpointer`), for `stats` and tests.
package struct WALCheckpointCounts: Sendable, Equatable {
    /// Passes run on the checkpoint thread while commits went on.
    package var background: Int
    /// Remainders copied by the writer after a background pass, so the WAL could restart.
    package var catchUps: Int
    /// Inline checkpoints of a WAL past its limit (background passes failing or held back by a reader).
    package var forced: Int
    /// Checkpoints that failed (the events stay in the WAL; a later checkpoint copies them).
    package var failures: Int
    /// Times the writer found the WAL started over from its beginning (seen at the commit after).
    package var restarts: Int

    package init(background: Int, catchUps: Int, forced: Int, failures: Int, restarts: Int) {
        self.background = background
        self.catchUps = catchUps
        self.forced = forced
        self.failures = failures
        self.restarts = restarts
    }
}
