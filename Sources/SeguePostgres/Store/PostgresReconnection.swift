/// The writer's session made again after the last one was lost, for the daemon's log: a connection
/// cut whose batch is read back as committed fails nothing, so without this a flapping link to the
/// server would leave no trace.
package struct PostgresReconnection: Sendable, Equatable {
    /// How long the writer was without a session.
    package var lostFor: Duration
    /// The batch whose commit outcome the loss left unknown, as the new session read it back.
    package var readBack: ReadBack?

    package struct ReadBack: Sendable, Equatable {
        package var seqs: ClosedRange<Int64>
        package var commands: Int
        /// Whether the server had committed it.
        package var stored: Bool

        package init(seqs: ClosedRange<Int64>, commands: Int, stored: Bool) {
            self.seqs = seqs
            self.commands = commands
            self.stored = stored
        }
    }

    package init(lostFor: Duration, readBack: ReadBack? = nil) {
        self.lostFor = lostFor
        self.readBack = readBack
    }
}
