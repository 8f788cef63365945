import Foundation
import SegueClient
import SegueCommandLine
import SegueCore
import SegueProtocol

/// `segue watch`: a live view on a terminal, plain lines through a pipe, JSON lines with `--json`.
/// It watches a daemon (snapshots, then events and ticks), a publisher alone (`segue replay
/// --publish`: no command socket, so events and ticks only), or a log replayed in-process
/// (`--replay LOG`, `WatchReplay`).
enum WatchCommand {
    static let keys = "q quits · j/k scroll · / filters"

    static func run(_ inv: Invocation) throws {
        if let log = inv.parsed.value("replay") { return try WatchReplay.run(inv, log: log) }
        // A live daemon's pace is its own: a speed would be silently ignored (as replay refuses its
        // pacing without --publish).
        if inv.parsed.value("speed") != nil { throw UsageError("Option '--speed' needs '--replay <log>'.") }
        let navigators = inv.parsed.arguments["navigator"] ?? []
        let terminal = !inv.json && Terminal.screenCapable
        let publish = try inv.subscriptionEndpoint()
        var screen = terminal ? WatchScreen(header: "segue watch  \(inv.endpoint)", keys: keys) : nil
        var model = WatchModel()
        // The header and what it is waiting for, at once: a daemon far away or not there shows as
        // "connecting", not as a blank screen.
        if var s = screen {
            s.enter()
            model.notice = "connecting to \(inv.endpoint) (commands) and \(publish) (publications)…"
            s.draw(model, force: true)
            screen = s
        }
        let client = try inv.client()
        guard let pong = try pingUnlessUnreachable(client) else {
            // No command socket: a publisher alone, such as `segue replay --publish`.
            return try watchPublisher(inv, endpoint: publish, navigators: navigators, screen: screen)
        }
        let subscription = try CatchUpSubscription(
            client: client, publishEndpoint: publish, navigators: navigators, heartbeats: true, curve: try inv.curve())
        model.notice = nil
        model.awaited = awaited(navigators, subscription, printing: !terminal, json: inv.json)
        var printer = PipedPrinter(json: inv.json, plain: !terminal && !inv.json)
        var silence = SilenceWatch(heartbeat: pong.heartbeatInterval)
        screen?.header = "segue watch  \(inv.endpoint)"
        // When the notice that heartbeats are back goes away again.
        var backUntil: ContinuousClock.Instant?
        while true {
            if let until = backUntil, ContinuousClock.now >= until {
                backUntil = nil
                if model.notice == Self.back { model.notice = nil }
                screen?.changed()
            }
            let update = try subscription.next(timeout: .milliseconds(terminal ? 16 : 1000))
            if silence.isNewlySilent() {
                model.notice = WatchModel.silence(after: silence.limit, from: publish)
                if !terminal { Output.error("segue watch: " + model.notice!) }
                screen?.changed()
            }
            switch update {
            case .snapshot(let s)?:
                model.set(s)
                printer.snapshot(s)
            case .event(let e)?:
                silence.answered()
                model.heard(seq: e.seq)
                if terminal, WatchModel.needsState(e), let s = try? client.state(e.navigator) { model.set(s) }
                printer.event(e) { try? client.state(e.navigator) }
            case .tick(let t)?:
                model.apply(t)
                printer.tick(t)
            case .heartbeat(let hb)?:
                model.heard(seq: hb.seq, frame: hb.frame)
                if silence.heard(hb) {
                    // Said as the silence was, for a few seconds on a terminal.
                    model.notice = terminal ? Self.back : nil
                    backUntil = ContinuousClock.now + .seconds(3)
                    if !terminal { Output.error("segue watch: " + Self.back) }
                }
            case .rewound(let seq)?:
                // What the view shows came from a log the daemon no longer has; snapshots follow.
                printer = PipedPrinter(json: inv.json, plain: !terminal && !inv.json)
                let line =
                    "the daemon's log no longer holds events shown (restarted on a restored older copy?); it ends at seq "
                    + "\(seq); starting over"
                if !terminal { Output.error("segue watch: " + line) }
                // A navigator the restored log does not hold is said to be so, as at start: piped, its
                // last stack line would otherwise stand for a navigator that is gone.
                model = WatchModel(
                    awaited: awaited(navigators, subscription, printing: !terminal, json: inv.json))
            case nil:
                break
            }
            guard var s = screen else { continue }
            if update != nil { s.changed() }
            if s.handleKeys(model) == .quit { return }
            s.header = header(inv.endpoint, model)
            s.draw(model)
            screen = s
        }
    }

    static let back = "heartbeats are back; the view is current."

    /// The named navigators the daemon's log does not hold (yet), each said on its own line when
    /// `printing` (stdout, or stderr under `--json`).
    static func awaited(
        _ navigators: [String], _ subscription: CatchUpSubscription, printing: Bool, json: Bool
    ) -> Set<String> {
        let names = Set(navigators.filter { subscription.catchUp.revisions[$0] == nil })
        if printing {
            for name in names.sorted() {
                if json { Output.error(WatchModel.awaiting(name)) } else { Output.line(WatchModel.awaiting(name)) }
            }
        }
        return names
    }

    /// `ping`, or nil when nothing listens at the command endpoint.
    static func pingUnlessUnreachable(_ client: SegueClient) throws -> Pong? {
        let result = Result { () throws(SegueClientError) -> Pong in try client.ping() }
        switch result {
        case .success(let pong): return pong
        case .failure(let error) where error.kind == .unreachable: return nil
        case .failure(let error): throw error
        }
    }

    static func header(_ endpoint: String, _ model: WatchModel) -> String {
        // The endpoint last: a narrow terminal cuts it before the position and the count.
        let closed = model.rows.values.count { $0.status == "closed" }
        return "segue watch  seq \(model.seq)  frame \(model.frame)  "
            + "\((model.rows.count - closed).counted("navigator"))\(closed > 0 ? " (\(closed) closed)" : "")  \(endpoint)"
    }

    /// How long a publisher with no command socket may stay silent from the start before the view says so.
    static let nothingPublished: Duration = .seconds(3)

    /// A publisher with no command socket beside it (`segue replay --publish`, a relay): what it
    /// publishes from now on, stacks from the events, progress from the ticks.
    static func watchPublisher(
        _ inv: Invocation, endpoint: String, navigators: [String], screen: WatchScreen?
    ) throws {
        var screen = screen
        let subscriber = try SegueSubscriber(
            endpoint: endpoint, topics: SegueSubscriber.topics(navigators: navigators, heartbeats: true),
            ready: .milliseconds(500), curve: try inv.curve())
        let notice = "no command socket at \(inv.endpoint): showing what \(endpoint) publishes"
        var model = WatchModel(awaited: Set(navigators))
        model.notice = notice
        if screen == nil { Output.error("segue watch: " + notice) }
        var printer = PipedPrinter(json: inv.json, plain: screen == nil && !inv.json)
        // A replay publishes no heartbeats, so silence is said: from the start, nothing there at all
        // (no segued, relay or replay) would otherwise be an empty view forever; after publications,
        // a replay that ended would leave its last frame on screen as if it were still running.
        let started = ContinuousClock.now
        var lastHeard: ContinuousClock.Instant?
        var toldQuiet = false
        // A publisher that sends heartbeats (a relay of daemons') may be idle between them: its
        // silence counts from three of the longest interval they name, as a daemon's does.
        var quietAfter = Self.nothingPublished
        while true {
            let publication = try subscriber.next(timeout: .milliseconds(16))
            if case .heartbeat(let hb)? = publication {
                quietAfter = max(quietAfter, WatchModel.silenceLimit(heartbeat: .seconds(hb.heartbeatSeconds)))
            }
            if publication != nil {
                lastHeard = .now
                if toldQuiet {
                    toldQuiet = false
                    model.notice = notice
                    screen?.changed()
                }
            } else if !toldQuiet, ContinuousClock.now - (lastHeard ?? started) > quietAfter {
                toldQuiet = true
                let quiet = "nothing published at \(endpoint) for \(WatchModel.seconds(quietAfter)) s"
                model.notice =
                    lastHeard == nil
                    ? quiet + ", and no command socket at \(inv.endpoint): is segued, a relay or replay --publish "
                        + "there? Still waiting."
                    : quiet + " (a replay that ended, or a publisher stopped); the view holds its last frame."
                if screen == nil { Output.error("segue watch: " + model.notice!) }
                screen?.changed()
            }
            switch publication {
            case .event(let e)?:
                model.fold(e)
                printer.event(e) { nil }
            case .tick(let t)?:
                model.apply(t)
                printer.tick(t)
            case .heartbeat(let hb)?:
                model.heard(seq: hb.seq, frame: hb.frame)
            case nil:
                break
            }
            guard var s = screen else { continue }
            if publication != nil { s.changed() }
            if s.handleKeys(model) == .quit { return }
            s.header = header(endpoint, model)
            s.draw(model)
            screen = s
        }
    }
}

/// What `watch` prints when stdout is not a terminal: a stack line per change, a bar per tick, and
/// under `--json` the events and ticks as JSON lines.
struct PipedPrinter {
    let json: Bool
    let plain: Bool
    /// The last stack line printed per navigator, and the stack each transition in flight will leave
    /// (from its `transition.started`), printed at its `transition.completed`.
    private var printedStack: [String: String] = [:]
    private var promisedStack: [String: [Int64: String]] = [:]

    init(json: Bool, plain: Bool) {
        self.json = json
        self.plain = plain
    }

    mutating func snapshot(_ s: NavigatorSnapshot) {
        if json {
            Output.line(JSON.object(s.json).serialized())
        } else if plain {
            printedStack[s.navigator] = WatchModel.stack(s)
            Output.line("\(s.navigator): stack \(WatchModel.stack(s))")
        }
    }

    /// `state` reads the navigator now, for a transition that started before the view did.
    mutating func event(_ e: EventRecord, state: () -> NavigatorSnapshot?) {
        if json { Output.line(e.json.serialized()) }
        let transition = e.data["transition"]?.int64Value ?? 0
        var after: String?
        switch e.eventType {
        case .transitionStarted?:
            promisedStack[e.navigator, default: [:]][transition] = WatchModel.stack(from: e)
        case .transitionCompleted?:
            after = promisedStack[e.navigator]?.removeValue(forKey: transition)
        case .transitionCancelled?:
            promisedStack[e.navigator]?[transition] = nil
        case .navigatorCreated?:
            after = WatchModel.stack(from: e)
        default:
            break
        }
        guard plain, WatchModel.needsState(e) else { return }
        Output.line("\(e.navigator): \(e.type)")
        if e.eventType == .transitionCompleted, after == nil, let s = state() { after = WatchModel.stack(s) }
        if let after, after != printedStack[e.navigator] {
            printedStack[e.navigator] = after
            Output.line("\(e.navigator): stack \(after)")
        }
    }

    func tick(_ t: PublishedTick) {
        if json {
            Output.write(t.bytes + [UInt8(ascii: "\n")])
        } else if plain {
            Output.line("\(t.navigator): " + WatchModel.bar(t, width: 20) + (t.final ? " final" : ""))
        }
    }
}
