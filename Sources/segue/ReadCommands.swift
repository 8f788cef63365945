import Foundation
import SegueClient
import SegueCommandLine
import SegueCore
import SegueProtocol

/// state, ls, log, ping, stats.
enum ReadCommands {
    static func state(_ inv: Invocation) throws {
        let s = try inv.client().state(inv.argument("navigator"), at: try inv.count("at"))
        inv.print(s.json, describe(s))
    }

    static func describe(_ s: NavigatorSnapshot) -> String {
        var lines = ["\(s.navigator) (\(s.status)) revision \(s.revision) seq \(s.seq) frame \(s.frame)"]
        lines.append("  stack: " + s.stack.map { "\($0.name)[\($0.id)]" }.joined(separator: " > "))
        if !s.modals.isEmpty {
            lines.append("  modals: " + s.modals.map { "\($0.name)[\($0.id)]" }.joined(separator: " > "))
        }
        if let t = s.transition {
            lines.append(
                "  transition \(t.id): \(t.operation) \(t.from.name) -> \(t.to.name), \(t.phase) at \(format(t.fraction))"
            )
        }
        if s.queued > 0 { lines.append("  queued: \(s.queued)") }
        return lines.joined(separator: "\n")
    }

    static func list(_ inv: Invocation) throws {
        let client = try inv.client()
        if inv.json {
            Output.line(JSON.object(try client.call("list")).serialized())
            return
        }
        // As a person numbers them (nav2 before nav10), as watch lists them.
        for item in try client.list().sorted(by: { NameOrder.ascending($0.navigator, $1.navigator) }) {
            var line = "\(item.navigator)\t\(item.status)\trevision \(item.revision)\tdepth \(item.depth)"
            if let top = item.top { line += "\ttop \(top.name)[\(top.id)]" }
            if let t = item.transition {
                line += "\t\(t["operation"]?.stringValue ?? "") \(t["phase"]?.stringValue ?? "")"
            }
            Output.line(line)
        }
    }

    static func log(_ inv: Invocation) throws {
        let client = try inv.client()
        let navigator = inv.parsed.value("navigator")
        let after = try inv.count("after") ?? 0
        let limit = try inv.parsed.value("limit").map { (text: String) throws(UsageError) in
            try ArgumentValues.positive(text, for: "--limit", "how many events to print")
        }
        var printer = try LogPrinter(inv)
        guard inv.parsed.flag("follow") else {
            var left = limit
            var cursor = after
            var printed = 0
            paging: while left != 0 {
                let page = try client.history(navigator: navigator, after: cursor, limit: 1000)
                for e in page.events {
                    if printer.isPastEnd(e) { break paging }
                    guard printer.keeps(e), left != 0 else { continue }
                    printer.print(e)
                    printed += 1
                    left = left.map { $0 - 1 }
                }
                cursor = max(cursor, page.next)
                if !page.more { break }
            }
            printer.flush()
            try sayIfMissing(navigator, printed: printed, after: after, client, follow: false)
            return
        }
        try follow(inv, client: client, navigator: navigator, after: after, limit: limit, printer: &printer)
    }

    /// `log --follow`: the log after `after`, then every event as it is published, each once and in
    /// order, on `CatchUpSubscription` (its backlog mode): what the subscription missed is read from
    /// the log, and a daemon back on an older copy of its log ends the command with status 1.
    static func follow(
        _ inv: Invocation, client: SegueClient, navigator: String?, after: Int64, limit: Int?,
        printer: inout LogPrinter
    ) throws {
        var left = limit
        // A malformed publish endpoint is a usage error before anything connects. Then the command
        // socket: a daemon not there is said within the client's second, where the subscription
        // would first wait 2 s for its handshake.
        let publishEndpoint = try inv.subscriptionEndpoint()
        let heartbeat = try client.ping().heartbeatInterval
        let subscription = try CatchUpSubscription(
            client: client, publishEndpoint: publishEndpoint, navigators: navigator.map { [$0] } ?? [],
            ticks: false, heartbeats: true, curve: try inv.curve(), after: after)
        var lastPrinted = after
        var toldMissing = false
        // No heartbeat for three of the daemon's intervals: say so once on stderr (a daemon stopped, a
        // link down, or a --publish-endpoint where no segued publishes), and again when they are back.
        var silence = SilenceWatch(heartbeat: heartbeat)
        while left != 0 {
            let update = try subscription.next(timeout: .milliseconds(500))
            // Nothing of a named navigator once the backlog is read: say whether it exists, so that a
            // typo is not mistaken for a navigator with no events (the output stays empty, for scripts).
            if !toldMissing, lastPrinted == 0, let navigator, update == nil || isHeartbeat(update) {
                toldMissing = true
                try sayIfMissing(navigator, printed: 0, after: after, client, follow: true)
            }
            switch update {
            case .event(let e)?:
                // Catching up on a long log, heartbeats wait unread behind the pages: not a silence.
                silence.answered()
                lastPrinted = max(lastPrinted, e.seq)
                if printer.isPastEnd(e) { return printer.flush() }
                guard printer.keeps(e) else { continue }
                printer.print(e)
                left = left.map { $0 - 1 }
                if left == 0 { printer.flush() }
            case .heartbeat(let hb)?:
                if silence.heard(hb) { Output.error("segue log: heartbeats are back.") }
            case .rewound(let end)?:
                throw Exit.restored(lastPrinted, end: end)
            case nil:
                printer.flush()
            case .snapshot?, .tick?:
                break
            }
            if silence.isNewlySilent() {
                Output.error(
                    "segue log: no heartbeat from segued at \(try inv.subscriptionEndpoint()) for over "
                        + "\(WatchModel.seconds(silence.limit)) s (daemon stopped, link down, or not its publish "
                        + "endpoint); still waiting.")
            }
        }
    }

    private static func isHeartbeat(_ update: CatchUpSubscription.Update?) -> Bool {
        if case .heartbeat? = update { return true }
        return false
    }

    /// For a named navigator with nothing printed, a line on stderr when it does not exist.
    static func sayIfMissing(
        _ navigator: String?, printed: Int, after: Int64, _ client: SegueClient, follow: Bool
    ) throws {
        guard let navigator, printed == 0, after == 0, try !exists(navigator, client) else { return }
        Output.error("segue log: there is no navigator \(navigator)" + (follow ? "; waiting for it." : "."))
    }

    /// Whether the daemon knows `navigator` (open or closed).
    static func exists(_ navigator: String, _ client: SegueClient) throws(SegueClientError) -> Bool {
        do {
            _ = try client.state(navigator)
            return true
        } catch {
            if error.code == .unknownNavigator { return false }
            throw error
        }
    }

    static func format(_ x: Double) -> String {
        let r = (x * 1000).rounded() / 1000
        return String(r)
    }
}

extension Exit {
    /// `log --follow` cannot go on: the daemon's log no longer holds what was printed up to seq
    /// `printed` (it restarted on a restored older copy of its log). Says so; status 1.
    static func restored(_ printed: Int64, end: Int64?) -> Exit {
        if let end, end < printed {
            Output.error(
                "error: the daemon's log now ends at seq \(end), before seq \(printed) already printed (restored "
                    + "from a backup?); run segue log again to read it.")
        } else {
            Output.error(
                "error: the daemon's log no longer holds the events printed up to seq \(printed) (restarted on a "
                    + "restored older copy?); run segue log again to read it.")
        }
        return Exit(.rejected)
    }
}
