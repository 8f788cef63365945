import SegueCore
import SegueProtocol
import SegueWire

/// Everything the engine sends, held until the log is durable up to what it shows.
///
/// A published tick or event never shows an effect that a crash could take back (docs/design.md,
/// "Invariants").
/// Each message waits for the seq it depends on; commits complete in seq order, so the outbox is a
/// FIFO released from the front as the durable seq advances.
struct Outbox {
    enum Message: Equatable {
        /// A reply on the command socket: the envelope (routing id, and the delimiter for REQ) and the body.
        case reply(envelope: [[UInt8]], body: [UInt8], ifVoided: VoidedReply)
        case publish(topic: [UInt8], body: [UInt8])
        /// A tick, encoded when released (for the subscribers there are then, in the forms they take);
        /// boxed, so that a tick does not make every message as large as itself.
        indirect case tick(Tick)
        /// A `history` request, read beside the loop once released (`BackgroundReads`): it waits here
        /// only so that the client's earlier replies leave before its page. Boxed, as a tick.
        indirect case history(envelope: [[UInt8]], HistoryQuery)
        /// A `list` reply, sorted and encoded beside the loop once released, as `history`.
        indirect case list(envelope: [[UInt8]], ListQuery)
    }

    private var pending: [(seq: Int64, message: Message)] = []
    private var head = 0
    var isEmpty: Bool { head == pending.count }
    var count: Int { pending.count - head }

    mutating func enqueue(_ message: Message, after seq: Int64) {
        pending.append((seq, message))
    }

    /// Queues `tick` (docs/protocol.md, "Ticks") until the log is durable up to `seq`.
    mutating func enqueueTick(_ tick: Tick, after seq: Int64) { enqueue(.tick(tick), after: seq) }

    /// Removes and returns the messages whose seq is durable.
    mutating func release(durable: Int64) -> [Message] {
        var out: [Message] = []
        while head < pending.count, pending[head].seq <= durable {
            out.append(pending[head].message)
            head += 1
        }
        compact()
        return out
    }

    /// After a failed commit: everything not yet durable is void. Every waiting reply becomes an
    /// `unavailable` error (built only now; on the normal path it costs nothing), so each request is
    /// still answered; events are dropped, since what they showed never happened. Ticks are handed
    /// back: one that shows a navigator's durable state still goes out (`keepDurableTicks`). A
    /// `history` request stays: it reads only what is stored.
    /// `cause`: why the commit failed, which the replies say (a damaged file, which no retry mends).
    mutating func voidUndurable(_ cause: VoidedReply.Cause = .storage) -> Voided {
        var voided = Voided()
        for (seq, message) in pending[head...] {
            switch message {
            case .reply(let envelope, _, let ifVoided):
                let body = Reply.error(id: ifVoided.id, .unavailable, ifVoided.message(cause))
                    .serializedBytes()
                voided.answers.append(.reply(envelope: envelope, body: body, ifVoided: ifVoided))
            case .history: voided.answers.append(message)
            case .list(let envelope, let query):
                // It shows the fleet with what the commit was to store: `unavailable`, as a reply.
                let ifVoided = VoidedReply.waiting(id: query.id)
                let body = Reply.error(id: query.id, .unavailable, ifVoided.message(cause)).serializedBytes()
                voided.answers.append(.reply(envelope: envelope, body: body, ifVoided: ifVoided))
            case .publish(_, let body): voided.events[seq] = body
            case .tick(let tick): voided.ticks.append(tick)
            }
        }
        pending.removeAll(keepingCapacity: true)
        head = 0
        return voided
    }

    /// What `voidUndurable` leaves to do: the answers to send now, the voided events' bodies by seq,
    /// which tell this daemon's events from another's when a lost commit is read back, and the ticks
    /// that waited, in order.
    struct Voided {
        var answers: [Message] = []
        var events: [Int64: [UInt8]] = [:]
        var ticks: [Tick] = []
    }

    private mutating func compact() {
        if head > 4096, head * 2 > pending.count {
            pending.removeFirst(head)
            head = 0
        } else if head == pending.count {
            pending.removeAll(keepingCapacity: true)
            head = 0
        }
    }
}

/// What a waiting reply says instead when the commit it waited for fails.
struct VoidedReply: Equatable {
    var id: String?
    /// The command and navigator the reply was for; nil for a reply that only waited behind others.
    /// Kept as parts: the sentence is written only for a reply that is voided, not for every command.
    var command: String?
    var navigator: String?
    /// With several daemons on the log, or on PostgreSQL, the request, to decide it again should its
    /// batch find the log's next seqs taken: by another daemon, or by a batch of this one whose commit
    /// outcome was lost (`EngineCore+Races.swift`).
    var retry: RaceRetry?

    /// Why the commit failed, which decides what the client can do.
    enum Cause {
        /// Storage refused the write (disk full, I/O, a lost connection): it may recover.
        case storage
        /// The log's file is damaged, which storage recovering does not mend.
        case damaged
        /// Another daemon on the log appended first: nothing is wrong, a retry goes through.
        case raced
        /// A batch of this daemon's whose commit outcome was lost was found stored after all, on the
        /// seqs this request's batch was numbered on: a retry goes through.
        case lateCommit
    }

    func message(_ cause: Cause = .storage) -> String {
        if cause == .raced {
            guard let command, let navigator else {
                return "Another daemon on the log appended first while this request waited; retry it."
            }
            return "Another daemon on the log appended first, so \(command) on \(navigator) was not applied; retry it."
        }
        if cause == .lateCommit {
            guard let command, let navigator else {
                return "A commit whose outcome was lost was found stored while this request waited; retry it."
            }
            return "A commit whose outcome was lost was found stored while \(command) on \(navigator) waited, on "
                + "the seqs it was numbered on, so it was not applied; retry it."
        }
        let next =
            cause == .damaged
            ? "the log's file is damaged: the operator must stop segued and restore a backup"
            : "retry when storage recovers"
        guard let command, let navigator else {
            return "The log could not be written while this request waited for it; \(next)."
        }
        return "The log could not be written, so \(command) on \(navigator) was not applied; \(next)."
    }

    static func waiting(id: String?) -> VoidedReply { VoidedReply(id: id) }
}
