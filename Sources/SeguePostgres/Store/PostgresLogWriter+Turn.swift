import SegueStore

/// Taking turns at the log's end among daemons that share it (docs/operations.md, "Several daemons
/// on one log").
///
/// Each daemon numbers its batch after the end it knows, and the fence refuses it if another
/// appended first. Left at that, a daemon that keeps a batch in flight keeps winning: its next
/// batch is on the server before a loser has even read the new end. So every fenced batch holds
/// the log's turn lock shared, and a loser takes it alone before it reads the end again: the
/// batches already in flight finish, the others wait, and the loser's next batch (the commands
/// it lost, decided again) goes first. It then yields the turn (`yieldTurn`, after that batch).
extension PostgresLogWriter {
    /// The first key of the turn lock ('SEGT'); the second is the events table's OID, as the
    /// writer lock's.
    static let turnClass: Int32 = 0x5345_4754

    /// How long a loser waits for the batches in flight (one commit each, normally); past it,
    /// it goes on without the turn, as before there was one.
    static let turnWaitMilliseconds = 500

    /// Taken by each fenced batch, in its transaction, before the fence: waits while a loser holds
    /// the turn alone.
    static let turnStatement = PreparedStatement(
        "segue_turn", "SELECT pg_advisory_xact_lock_shared($1, 'events'::regclass::oid::int)", [.int4])

    static func sharedTurn() -> PipelineStep {
        var parameters = PostgresParameters()
        parameters.append(turnClass)
        return .prepared(turnStatement, parameters)
    }

    /// Whether a batch was refused because another daemon appended first: at the fence, or at the
    /// key of a seq it took.
    package static func lostTheRace(_ error: StoreError) -> Bool {
        error.sqlState == SQLState.logMoved
            || (error.sqlState == SQLState.uniqueViolation && error.message.contains("events_pkey"))
    }

    /// After a lost race, before the log's end is read again: takes the turn alone, waiting at
    /// most `turnWaitMilliseconds` (nothing held then: the loser goes on as it would have).
    func takeTurn(_ session: PostgresSession) {
        guard !holdsTurn else { return }
        var parameters = PostgresParameters()
        parameters.append(Self.turnClass)
        let steps: [PipelineStep] = [
            .query("SELECT set_config('lock_timeout', '\(Self.turnWaitMilliseconds)ms', true)"),
            .query("SELECT pg_advisory_lock($1, 'events'::regclass::oid::int)", parameters),
        ]
        holdsTurn = (try? session.connection.transaction(steps, afterSending: nil).get()) != nil
    }

    /// Gives the turn back, if this writer holds it: on the committer thread, after the batch the
    /// turn was taken for. A lost session gave it back already.
    func yieldTurn() {
        guard holdsTurn else { return }
        holdsTurn = false
        guard let session, !session.isBroken else { return }
        var parameters = PostgresParameters()
        parameters.append(Self.turnClass)
        _ = try? session.connection.query("SELECT pg_advisory_unlock($1, 'events'::regclass::oid::int)", parameters)
    }
}
