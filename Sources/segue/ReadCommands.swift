import Foundation
import SegueClient
import SegueCore

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
        let reply = try client.call("list")
        if inv.json {
            Output.line(JSON.object(reply).serialized())
            return
        }
        for item in try client.list() {
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
        var after = try inv.count("after") ?? 0
        var left = try inv.count("limit").map(Int.init)
        let follow = inv.parsed.flag("follow")
        let subscriber =
            follow
            ? try SegueSubscriber(
                endpoint: try inv.subscriptionEndpoint(),
                topics: [navigator.map { "event/\($0)/" } ?? "event/", "hb/"],
                // The handshake is only waited for briefly: the backlog's first call says soon enough
                // that no daemon answers, and heartbeats show what a late subscription missed.
                ready: min(inv.timeout, .milliseconds(500)), curve: try inv.curve())
            : nil
        var lastRevision: Int64?
        var lastPrinted: Int64 = 0
        // Which daemon instance printed events come from: one that restarted on a restored older copy
        // of its log would otherwise have its events printed under seqs already printed for others.
        let pong = follow ? try client.ping() : nil
        var lineage = Lineage(instance: pong?.instance)
        func emit(_ e: EventRecord) {
            if inv.json { Output.line(e.json.serialized()) } else { Output.line(describe(e)) }
            after = max(after, e.seq)
            lastPrinted = max(lastPrinted, e.seq)
            lastRevision = e.revision
            if let l = left { left = l - 1 }
            if follow { lineage.saw(e) }
        }
        // The backlog from the log, then (with --follow) what is published, deduplicated by seq.
        while left != 0 {
            let page = try client.history(navigator: navigator, after: after, limit: min(left ?? 1000, 1000))
            for e in page.events { emit(e) }
            after = max(after, page.next)
            if !page.more { break }
        }
        // The same instance before and after the backlog: all of it came from one log. (Another one,
        // or no answer: the first heartbeat compares what was printed.)
        if follow, let pong = try? client.ping(), pong.instance == lineage.instance {
            _ = lineage.heartbeat(instance: pong.instance, known: lastPrinted, reported: pong.seq)
        }
        // Whether what was printed is still the log of daemon `instance`, which opened it at `since`
        // (`Lineage`); a restart on a restored older copy ends the command with status 1.
        func stayOnLineage(instance: String?, since: Int64?, reported: Int64?) throws {
            let same = try client.stays(
                &lineage, on: instance, since: since, reported: reported, known: lastPrinted,
                byNavigator: navigator != nil)
            if !same { throw Exit.restored(lastPrinted, end: try? client.ping().seq) }
        }
        // Nothing for a named navigator: say whether it exists, so that a typo is not mistaken for a
        // navigator with no events (the output stays empty, for scripts).
        if let navigator, lastPrinted == 0, after == 0, try !exists(navigator, client) {
            Output.error("segue log: there is no navigator \(navigator)" + (follow ? "; waiting for it." : "."))
        }
        guard let subscriber, left != 0 else { return }
        // What the subscription missed (a restart, drops at the send limit) is read from the log, page
        // by page, before the event that showed the gap. The gap is in the global seq, or with
        // --navigator in that navigator's revision (its seqs are not consecutive).
        // Whether it read to the end (not cut short by a page from yet another run of the daemon).
        @discardableResult
        func fill(before seq: Int64) throws -> Bool {
            while left != 0 {
                let page = try client.history(navigator: navigator, after: after, limit: min(left ?? 1000, 1000))
                // From another run than what was printed (a restart whose heartbeat is still to come):
                // checked first, so that its events are not taken for the old log's.
                switch try client.judge(page, &lineage, known: lastPrinted, byNavigator: navigator != nil) {
                case .take: break
                case .leave: return false
                case .rewound: throw Exit.restored(lastPrinted, end: try? client.ping().seq)
                }
                let missed = page.events.filter { $0.seq < seq }
                for e in missed where left != 0 { emit(e) }
                guard page.more, missed.count == page.events.count, !missed.isEmpty else { return true }
            }
            return true
        }
        // The last events before a quiet spell show no gap: a heartbeat does, since every event up to
        // its seq was published before it. With --navigator it cannot say whose events moved the log,
        // so the log is asked once per heartbeat that moved past the last one asked about.
        var checked = after
        // No heartbeat for three of the daemon's intervals: say so once on stderr (a daemon stopped, a
        // link down, or a --publish-endpoint where no segued publishes), and again when they are back.
        var silenceLimit = WatchModel.silenceLimit(heartbeat: pong?.heartbeatInterval)
        var lastHeartbeat = ContinuousClock.now
        var silent = false
        while left != 0 {
            let publication = try subscriber.next(timeout: .milliseconds(500))
            if case .heartbeat(let hb)? = publication {
                lastHeartbeat = ContinuousClock.now
                if let seconds = hb["heartbeatSeconds"]?.doubleValue, seconds > 0 {
                    silenceLimit = WatchModel.silenceLimit(heartbeat: .seconds(seconds))
                }
                if silent {
                    silent = false
                    Output.error("segue log: heartbeats are back.")
                }
            } else if !silent, ContinuousClock.now - lastHeartbeat > silenceLimit {
                silent = true
                Output.error(
                    "segue log: no heartbeat from segued at \(try inv.subscriptionEndpoint()) for over "
                        + "\(WatchModel.seconds(silenceLimit)) s (daemon stopped, link down, or not its publish "
                        + "endpoint); still waiting.")
            }
            switch publication {
            case .heartbeat(let hb)?:
                guard let seq = hb["seq"]?.int64Value else { continue }
                // Another daemon instance: its log must still hold what was printed, or its events
                // would come under seqs already printed for others (a restart on a restored copy).
                let instance = hb["instance"]?.stringValue
                // A heartbeat of a run already replaced, still in the queue: it says nothing now.
                if lineage.isRetired(instance) { continue }
                do {
                    try stayOnLineage(instance: instance, since: hb["since"]?.int64Value, reported: seq)
                } catch let error as SegueClientError where CatchUpSubscription.isSilence(error) {
                    continue
                }
                // Below what was printed: from the same instance, a heartbeat that waited behind the
                // backlog's replies. From a daemon that does not say, the log's end (`ping`) tells.
                if seq < lastPrinted, instance == nil, case let end = try? client.ping().seq, let end, end < lastPrinted
                {
                    throw Exit.restored(lastPrinted, end: end)
                }
                guard seq > checked else { continue }
                // A daemon that stops sends a last heartbeat and then answers nothing: the check is
                // left for the next heartbeat (of the daemon that replaces it), not a failure.
                do {
                    // Cut short, the check is left for the next heartbeat.
                    let needed = navigator != nil || seq > after
                    if try !needed || fill(before: seq + 1) { checked = seq }
                } catch let error as SegueClientError where CatchUpSubscription.isSilence(error) {
                    continue
                }
            case .event(let e)? where e.seq > after:
                // With nothing of the navigator printed yet, a seq jump may be a gap before the fill;
                // after it, it is none (its seqs are not consecutive).
                func gap(beforeFill: Bool) -> Bool {
                    navigator == nil
                        ? e.seq > after + 1
                        : lastRevision.map { e.revision > $0 + 1 } ?? (beforeFill && e.seq > after + 1)
                }
                if gap(beforeFill: true) {
                    do {
                        try fill(before: e.seq)
                    } catch let error as SegueClientError where CatchUpSubscription.isSilence(error) {
                        // The daemon stopped answering: the event waits for the next heartbeat's check,
                        // which reads it from the log after what it missed, in order.
                        continue
                    }
                    // Cut short (a page from another run of the daemon): likewise.
                    if gap(beforeFill: false) { continue }
                }
                if left != 0, e.seq > after { emit(e) }
            default: continue
            }
        }
    }

    /// Whether the daemon knows `navigator` (open or closed).
    static func exists(_ navigator: String, _ client: SegueClient) throws(SegueClientError) -> Bool {
        do {
            _ = try client.state(navigator)
            return true
        } catch {
            if case .rejected(.unknownNavigator, _, _) = error { return false }
            throw error
        }
    }

    static func describe(_ e: EventRecord) -> String {
        var line = "\(e.seq)\t\(e.navigator)#\(e.revision)\tframe \(e.frame)\t\(e.type)"
        if e.data.count > 0 { line += "\t" + JSON.object(e.data).serialized() }
        return line
    }

    static func ping(_ inv: Invocation) throws {
        let client = try inv.client()
        let reply = try client.call("ping")
        let pong = try Pong(reply)
        inv.print(
            reply,
            "segued \(pong.version) at \(inv.endpoint): \(pong.frameRate) Hz, frame \(pong.frame), seq \(pong.seq)")
    }

    static func stats(_ inv: Invocation) throws {
        let reply = try inv.client().stats()
        if inv.json {
            Output.line(JSON.object(reply).serialized())
        } else {
            // One `dotted.name<TAB>value` line per counter, at any depth, strings unquoted: easy to
            // read and to grep or cut.
            func lines(_ prefix: String, _ value: JSON) {
                if let object = value.objectValue {
                    for (key, member) in object.members { lines(prefix.isEmpty ? key : "\(prefix).\(key)", member) }
                } else {
                    Output.line("\(prefix)\t\(value.stringValue ?? value.serialized())")
                }
            }
            for (key, value) in reply.members where key != "ok" && key != "id" { lines(key, value) }
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
