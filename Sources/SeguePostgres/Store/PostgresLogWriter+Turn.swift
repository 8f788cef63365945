import SegueStore
import Synchronization

/// Taking turns at the log's end among daemons that share it (docs/operations.md, "Taking turns").
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

    /// How long a loser waits for the batches in flight (one commit each, normally), and a batch
    /// for a loser's turn: past it, the loser goes on without the turn, and the batch is refused
    /// as one that lost the race (a loser stopped while it holds the turn holds every daemon's
    /// appends up this long, then they are decided again).
    static let turnWaitMilliseconds = 500

    /// Taken by each fenced batch, in its transaction, before the fence: waits, at most
    /// `turnWaitMilliseconds`, while a loser holds the turn alone. The batch's other statements
    /// keep the session's lock timeout (the select list is evaluated in order).
    static let turnStatement = PreparedStatement(
        "segue_turn",
        "SELECT set_config('lock_timeout', $2, true), pg_advisory_xact_lock_shared($1, 'events'::regclass::oid::int), "
            + "set_config('lock_timeout', $3, true)", [.int4, .text, .text])

    /// The turn lock's first key, as the statements' `$1`.
    private static func turnKey() -> PostgresParameters {
        var parameters = PostgresParameters()
        parameters.append(turnClass)
        return parameters
    }

    func sharedTurn() -> PipelineStep {
        var parameters = Self.turnKey()
        parameters.append("\(Self.turnWaitMilliseconds)ms")
        parameters.append("\(lockTimeoutMilliseconds)ms")
        return .prepared(Self.turnStatement, parameters)
    }

    /// After a lost race, before the log's end is read again: takes the turn alone, waiting at
    /// most `turnWaitMilliseconds` (nothing held then: the loser goes on as it would have).
    func takeTurn(_ session: PostgresSession) {
        guard !holdsTurn else { return }
        let steps: [PipelineStep] = [
            .query("SELECT set_config('lock_timeout', '\(Self.turnWaitMilliseconds)ms', true)"),
            .query("SELECT pg_advisory_lock($1, 'events'::regclass::oid::int)", Self.turnKey()),
        ]
        holdsTurn = (try? session.connection.transaction(steps, afterSending: nil).get()) != nil
        if holdsTurn { turns.taken.add(1, ordering: .releasing) }
    }

    /// Gives the turn back if this writer holds it and has not taken it again since `taken` turns
    /// (a yield asked for after one loss must not give away the turn a later loss took). A lost
    /// session gave it back already; an unlock that fails ends the session, which does too.
    func yieldTurn(taken: Int) {
        guard holdsTurn, turns.taken.load(ordering: .acquiring) == taken else { return }
        guard let session, !session.isBroken else {
            holdsTurn = false
            return
        }
        let sql = "SELECT pg_advisory_unlock($1, 'events'::regclass::oid::int)"
        guard (try? session.connection.query(sql, Self.turnKey()).bool(0, 0)) == true else { return drop() }
        holdsTurn = false
    }
}

/// How many times a writer took the turn: read by the store's caller when it asks for a yield.
final class TurnCount: Sendable {
    let taken = Atomic<Int>(0)
}

extension StoreError {
    /// Whether a batch on a shared log was refused because another daemon appended first: at the
    /// fence, at the key of a seq it took, or waiting for a loser's turn (`PostgresLogWriter+Turn`).
    package var lostTheLogsRace: Bool {
        sqlState == SQLState.logMoved
            || (sqlState == SQLState.uniqueViolation && message.contains("events_pkey"))
            || (sqlState == SQLState.lockNotAvailable && sql?.contains("pg_advisory_xact_lock_shared") == true)
    }
}
