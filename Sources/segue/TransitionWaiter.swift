import Foundation
import SegueClient
import SegueCore
import SegueProtocol

/// `--wait`: subscribed to `event/<navigator>/` before the command is sent, it follows the command's
/// transition (known from the reply, or from the first event the command wrote that names one: a
/// queued command's `transition.started`, or the `transition.finishing` / `transition.cancelling` of
/// a gesture's last step) to its `transition.completed` or `transition.cancelled`. A queued command
/// that is dropped ends it too.
///
/// It waits as long as the transition takes (a queued command may wait for many), not `--timeout`:
/// that bounds each answer the daemon owes, so whenever the subscription is quiet for a moment the
/// waiter reads the log, and a daemon that stops answering ends the wait as a timeout.
struct TransitionWaiter {
    let subscriber: SegueSubscriber
    let navigator: String
    let timeout: Duration

    init(_ inv: Invocation, navigator: String) throws {
        self.navigator = navigator
        timeout = inv.timeout
        // Half a second at most for the subscription's handshake: a local daemon completes it in
        // milliseconds, a refused key shows within that time, and a daemon that is not there is the
        // command's own timeout to report, not a second --timeout spent here. An event sent
        // before the subscription is in place is read from the log anyway.
        subscriber = try SegueSubscriber(
            endpoint: try inv.subscriptionEndpoint(), topics: [Topic.events(of: navigator)],
            ready: min(inv.timeout, .milliseconds(500)),
            curve: try inv.curve())
    }

    struct Outcome {
        var transition: Int
        var type: EventType
        var event: EventRecord
    }

    func wait(client: SegueClient, requestID: String, reply: CommandReply) throws -> Outcome {
        var transition = reply.queued == nil ? reply.transition : nil
        var cursor = max(0, reply.seq - 64)
        func judge(_ event: EventRecord) -> Outcome? {
            guard event.navigator == navigator else { return nil }
            let id = event.data["transition"]?.int64Value.map { Int($0) }
            if transition == nil, event.command == requestID {
                if event.eventType == .transitionDropped {
                    return Outcome(transition: 0, type: .transitionDropped, event: event)
                }
                transition = id
            }
            guard let transition, id == transition else { return nil }
            if let type = event.eventType, type.endsTransition {
                return Outcome(transition: transition, type: type, event: event)
            }
            return nil
        }
        while true {
            if let publication = try subscriber.next(timeout: .milliseconds(250)) {
                if case .event(let event) = publication, let outcome = judge(event) { return outcome }
                continue
            }
            // Quiet: look in the log in case the subscription missed the event (a slow joiner).
            var more = true
            while more {
                let page = try readLog(client, after: cursor)
                for event in page.events { if let outcome = judge(event) { return outcome } }
                cursor = page.next
                more = page.more
            }
        }
    }

    /// A page of the navigator's log; a daemon that stops answering ends the wait as a timeout of the
    /// wait, not of an internal `history` request the user never typed.
    private func readLog(_ client: SegueClient, after cursor: Int64) throws(SegueClientError) -> HistoryPage {
        do {
            return try client.history(navigator: navigator, after: cursor, limit: 1000)
        } catch {
            guard error.kind == .timeout else { throw error }
            throw .timeout(command: "--wait", waited: timeout)
        }
    }

    /// Prints how the transition ended (a line, or the event with `--json`) and exits 2 for a cancel, 1
    /// for a queued command that was dropped.
    func report(_ outcome: Outcome, _ inv: Invocation) throws {
        try Self.report(outcome, navigator: navigator, inv)
    }

    static func report(_ outcome: Outcome, navigator: String, _ inv: Invocation) throws {
        if !inv.json {
            Output.line(
                "\(navigator): transition \(outcome.transition) \(outcome.type.rawValue.dropFirst("transition.".count))"
            )
        } else {
            Output.line(outcome.event.json.serialized())
        }
        if outcome.type == .transitionCompleted { return }
        throw Exit(outcome.type == .transitionCancelled ? .cancelled : .rejected)
    }
}
