import Foundation
import SegueClient
import SegueCore

/// `segue watch`: a live view on a terminal, plain lines through a pipe, JSON lines with `--json`.
enum WatchCommand {
    static func run(_ inv: Invocation) throws {
        let navigators = inv.parsed.arguments["navigator"] ?? []
        let client = try inv.client()
        let subscription = try CatchUpSubscription(
            client: client, publishEndpoint: try inv.subscriptionEndpoint(), navigators: navigators,
            heartbeats: true, curve: try inv.curve())
        let terminal = !inv.json && isatty(STDOUT_FILENO) == 1
        if terminal { Terminal.enter() }
        var model = WatchModel()
        // The named navigators the subscription found no snapshot of; they appear once created.
        model.awaited = Set(navigators.filter { subscription.catchUp.revisions[$0] == nil })
        if !terminal {
            for name in model.awaited.sorted() {
                if inv.json { Output.error(WatchModel.awaiting(name)) } else { Output.line(WatchModel.awaiting(name)) }
            }
        }
        // Piped: the last stack line printed per navigator, and the stack each transition in flight
        // will leave (from its `transition.started`), printed at its `transition.completed`.
        var printedStack: [String: String] = [:]
        var promisedStack: [String: [Int64: String]] = [:]
        var dirty = true
        var lastDraw = ContinuousClock.now - .seconds(1)
        let header = "segue watch  \(inv.endpoint)  (Ctrl-C to quit)"
        // segued sends a heartbeat every second (by default): a view that has had none for a while
        // may be stale, and says so until the next one (the subscription reconnects by itself).
        // Each heartbeat carries the interval, so a daemon restarted with another one is judged by it.
        var silenceLimit = WatchModel.silenceLimit(heartbeat: try client.ping().heartbeatInterval)
        var lastHeartbeat = ContinuousClock.now
        var silent = false
        while true {
            let update = try subscription.next(timeout: .milliseconds(terminal ? 16 : 1000))
            if !silent, ContinuousClock.now - lastHeartbeat > silenceLimit {
                silent = true
                model.notice = WatchModel.silence(after: silenceLimit)
                if !terminal { Output.error("segue watch: " + WatchModel.silence(after: silenceLimit)) }
                dirty = true
            }
            switch update {
            case .snapshot(let s)?:
                model.set(s)
                if inv.json {
                    Output.line(JSON.object(s.json).serialized())
                } else if !terminal {
                    printedStack[s.navigator] = WatchModel.stack(s)
                    Output.line("\(s.navigator): stack \(WatchModel.stack(s))")
                }
            case .event(let e)?:
                if inv.json { Output.line(e.json.serialized()) }
                let transition = e.data["transition"]?.int64Value ?? 0
                var after: String?
                switch e.type {
                case "transition.started":
                    promisedStack[e.navigator, default: [:]][transition] = WatchModel.stack(from: e)
                case "transition.completed":
                    after = promisedStack[e.navigator]?.removeValue(forKey: transition)
                case "transition.cancelled":
                    promisedStack[e.navigator]?[transition] = nil
                case "navigator.created":
                    after = WatchModel.stack(from: e)
                default:
                    break
                }
                // Only the terminal view draws the model: piped lines and JSON come from the events.
                if terminal, WatchModel.needsState(e), let s = try? client.state(e.navigator) { model.set(s) }
                if !inv.json, !terminal, WatchModel.needsState(e) {
                    Output.line("\(e.navigator): \(e.type)")
                    // A transition started before this view did: its stack as of now.
                    if e.type == "transition.completed", after == nil, let s = try? client.state(e.navigator) {
                        after = WatchModel.stack(s)
                    }
                    if let after, after != printedStack[e.navigator] {
                        printedStack[e.navigator] = after
                        Output.line("\(e.navigator): stack \(after)")
                    }
                }
            case .tick(let t)?:
                model.apply(t)
                if inv.json {
                    FileHandle.standardOutput.write(Data(t.bytes + [UInt8(ascii: "\n")]))
                } else if !terminal {
                    Output.line("\(t.navigator): " + WatchModel.bar(t, width: 20) + (t.final ? " final" : ""))
                }
            case .heartbeat(let hb)?:
                lastHeartbeat = ContinuousClock.now
                if let seconds = hb["heartbeatSeconds"]?.doubleValue, seconds > 0 {
                    silenceLimit = WatchModel.silenceLimit(heartbeat: .seconds(seconds))
                }
                if silent {
                    silent = false
                    model.notice = nil
                    if !terminal { Output.error("segue watch: heartbeats are back; the view is current.") }
                }
            case .rewound(let seq)?:
                // What the view shows came from a log the daemon no longer has; snapshots follow.
                model = WatchModel(awaited: Set(navigators))
                printedStack = [:]
                promisedStack = [:]
                let line =
                    "the daemon's log no longer holds events shown (restarted on a restored older copy?); it ends at seq "
                    + "\(seq); starting over"
                if !terminal { Output.error("segue watch: " + line) }
            case nil:
                break
            }
            dirty = dirty || update != nil
            if terminal, dirty, ContinuousClock.now - lastDraw >= .milliseconds(16) {
                let (columns, _) = Terminal.size()
                Terminal.draw(model.render(header: header, width: columns))
                lastDraw = ContinuousClock.now
                dirty = false
            }
        }
    }
}

/// ANSI terminal chores for `watch`: hide the cursor, redraw from the top, and put things back on
/// Ctrl-C or termination.
enum Terminal {
    static func enter() {
        write("\u{1B}[?25l\u{1B}[2J")
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            signal(sig) { _ in
                let restore = "\u{1B}[?25h\u{1B}[0m\n"
                _ = restore.withCString { Glibc.write(STDOUT_FILENO, $0, strlen($0)) }
                _exit(0)
            }
        }
    }

    static func draw(_ lines: [String]) {
        var out = "\u{1B}[H"
        for line in lines { out += line + "\u{1B}[K\n" }
        out += "\u{1B}[J"
        write(out)
    }

    static func size() -> (columns: Int, rows: Int) {
        var w = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &w) == 0, w.ws_col > 0 { return (Int(w.ws_col), Int(w.ws_row)) }
        return (80, 24)
    }

    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
