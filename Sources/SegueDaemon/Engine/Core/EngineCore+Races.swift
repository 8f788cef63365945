import SegueProtocol

/// A command whose batch lost the race for the log's next seqs to another daemon (several daemons
/// on one log): boxed, so that a reply waiting in the outbox grows by a pointer only.
final class RaceRetry: Equatable {
    let request: Request
    /// How many times it was decided.
    let attempts: Int

    init(_ request: Request, attempts: Int) {
        self.request = request
        self.attempts = attempts
    }

    static func == (lhs: RaceRetry, rhs: RaceRetry) -> Bool {
        lhs === rhs || (lhs.request == rhs.request && lhs.attempts == rhs.attempts)
    }
}

/// What a lost batch's waiting replies become: commands decided again, and the answers of their
/// clients that queue behind them (a client's replies keep the order of its requests).
enum RaceRerun {
    /// A command to decide again, with the `unavailable` answer it gets if it cannot be.
    case command(RaceRetry, envelope: [[UInt8]], unavailable: Outbox.Message)
    case answer(Outbox.Message)
}

extension EngineCore {
    /// Whether a batch can find the log's next seqs taken, and its commands are kept to decide
    /// again: with several daemons, or on PostgreSQL, where a commit's outcome can be lost with the
    /// connection and the batch found stored later, after batches were numbered behind the rollback.
    var rerunsLostBatches: Bool { isSharded || options.commitOutcomeCanBeLost }

    /// How many times a command is decided before its client gets `unavailable`: a loser takes the
    /// log's turn, so the second try normally goes through (`PostgresLogWriter+Turn`).
    static let raceAttempts = 3

    /// A batch lost the race: its commands are decided again (not answered `unavailable`, which
    /// would leave the log to the daemon that won, its next batch already on the server), and the
    /// other answers of their clients wait behind them; the rest go out now.
    func keepForRerun(_ answers: [Outbox.Message]) -> [Outbox.Message] {
        var now: [Outbox.Message] = []
        var waiting: Set<[UInt8]> = []
        for answer in answers {
            let envelope: [[UInt8]]
            switch answer {
            case .reply(let e, _, _), .history(let e, _): envelope = e
            default:
                now.append(answer)
                continue
            }
            let client = ClientKey.of(envelope[...])
            if case .reply(_, _, let voided) = answer, let retry = voided.retry {
                guard retry.attempts < Self.raceAttempts else {
                    stats.raceRefusals += 1
                    now.append(answer)
                    continue
                }
                raceReruns.append(.command(retry, envelope: envelope, unavailable: answer))
                waiting.insert(client)
            } else if waiting.contains(client) {
                raceReruns.append(.answer(answer))
            } else {
                now.append(answer)
            }
        }
        return now
    }

    /// Decides the lost commands again, at `now`, on the log's end as read after the loss.
    func rerunRaced(now: Int64) {
        guard !raceReruns.isEmpty else { return }
        let reruns = raceReruns
        raceReruns.removeAll()
        closeFrames(now: now, publishTicks: !isOverloaded, after: .commands)
        passHeldFrames(now: now)
        for rerun in reruns {
            switch rerun {
            case .command(let retry, let envelope, let unavailable):
                guard case .navigation(let command) = retry.request.body else {
                    actions.append(.send([unavailable]))
                    continue
                }
                if let moved = movedReply(retry.request) {
                    reject(envelope, moved)
                    continue
                }
                stats.raceReruns += 1
                execute(command, retry.request, envelope, now: now, raceAttempts: retry.attempts)
            case .answer(let message):
                outbox.enqueue(message, after: fleet.lastSeq)
            }
        }
    }

    /// At shutdown, with no instant to decide them at: the lost commands get `unavailable`.
    func answerRacedUnavailable() {
        guard !raceReruns.isEmpty else { return }
        let answers = raceReruns.map { rerun -> Outbox.Message in
            switch rerun {
            case .command(_, _, let unavailable): unavailable
            case .answer(let message): message
            }
        }
        raceReruns.removeAll()
        actions.append(.send(answers))
    }
}
