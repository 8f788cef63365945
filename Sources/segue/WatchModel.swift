import SegueClient
import SegueCore

/// What `segue watch` shows: each navigator's stack and the transition in flight, kept current from
/// snapshots, events (a committed change refetches the navigator's state) and ticks.
struct WatchModel {
    struct Row {
        var snapshot: NavigatorSnapshot
        var tick: PublishedTick?
    }

    private(set) var rows: [String: Row] = [:]
    private(set) var frame: Int64 = 0
    /// Navigators named on the command line that do not exist (yet): shown as waiting, so a typo is
    /// not an empty screen.
    var awaited: Set<String> = []

    init(awaited: Set<String> = []) { self.awaited = awaited }

    mutating func set(_ snapshot: NavigatorSnapshot) {
        rows[snapshot.navigator] = Row(snapshot: snapshot, tick: rows[snapshot.navigator]?.tick)
        awaited.remove(snapshot.navigator)
    }

    /// Shown under the header while heartbeats are missing.
    var notice: String?

    /// How long without a heartbeat before the view says it may be stale: three of the daemon's
    /// intervals (`ping`'s `heartbeatSeconds`, 1 s by default), at least 3 s.
    static func silenceLimit(heartbeat interval: Duration?) -> Duration {
        max(.seconds(3), (interval ?? .seconds(1)) * 3)
    }

    static func silence(after limit: Duration) -> String {
        "no heartbeat from segued for over \(seconds(limit)) s: the view may be stale (daemon stopped or link down)"
    }

    /// `limit` in seconds, as short as it goes ("3", "4.5").
    static func seconds(_ limit: Duration) -> String {
        let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
        return seconds.rounded() == seconds ? String(Int(seconds)) : ReadCommands.format(seconds)
    }

    /// The line for a named navigator that does not exist yet.
    static func awaiting(_ name: String) -> String { "\(name): not created yet; waiting for it" }

    /// Applies a tick; returns a plain line describing it.
    mutating func apply(_ tick: PublishedTick) {
        frame = max(frame, tick.frame)
        guard rows[tick.navigator] != nil else { return }
        rows[tick.navigator]!.tick = tick.final ? nil : tick
    }

    /// Whether the event changes the stack or the transition (so the state should be fetched again).
    static func needsState(_ event: EventRecord) -> Bool {
        event.type != "interaction.updated"
    }

    /// The screen, `width` columns wide.
    func render(header: String, width: Int) -> [String] {
        var lines = [String(header.prefix(width)), notice.map { "!! " + $0 } ?? ""]
        for name in rows.keys.sorted() {
            let row = rows[name]!
            let s = row.snapshot
            lines.append("\(name)  (\(s.status), revision \(s.revision))")
            lines.append("  stack: " + Self.stack(s))
            if let t = row.tick {
                lines.append("  " + Self.bar(t, width: max(10, min(40, width - 50))))
            } else if let t = s.transition {
                lines.append("  #\(t.id) \(t.operation) \(t.phase) fraction \(ReadCommands.format(t.fraction))")
            } else {
                lines.append("  idle")
            }
            lines.append("")
        }
        for name in awaited.sorted() { lines += [Self.awaiting(name), ""] }
        return lines.map { String($0.prefix(width)) }
    }

    static func stack(_ s: NavigatorSnapshot) -> String {
        stack(s.stack.map { ($0.name, $0.id) }, modals: s.modals.map { ($0.name, $0.id) })
    }

    static func stack(_ stack: [(name: String, id: String)], modals: [(name: String, id: String)]) -> String {
        var text = stack.map { "\($0.name)[\($0.id)]" }.joined(separator: " > ")
        if !modals.isEmpty {
            text += " | modals: " + modals.map { "\($0.name)[\($0.id)]" }.joined(separator: " > ")
        }
        return text
    }

    /// The stack an event leaves behind, as `stack(_:)` writes it, when the event itself says
    /// (`navigator.created`: its root; `transition.started`: what the stack will be on completion).
    /// Piped output takes stacks from events, not from `state`, which a reader that fell behind
    /// would only get as of now: intermediate stacks would be missing from its lines.
    static func stack(from event: EventRecord) -> String? {
        func screens(_ value: JSON?) -> [(name: String, id: String)]? {
            value?.arrayValue?.compactMap { screen in
                guard let name = screen["name"]?.stringValue, let id = screen["id"]?.stringValue else { return nil }
                return (name, id)
            }
        }
        switch event.type {
        case "navigator.created":
            return screens(event.data["root"].map { JSON.array([$0]) }).map { stack($0, modals: []) }
        case "transition.started":
            guard let stack = screens(event.data["stack"]) else { return nil }
            return Self.stack(stack, modals: screens(event.data["modals"]) ?? [])
        default:
            return nil
        }
    }

    /// `#1 push animating [#######.......] fraction 0.500 progress 0.623`
    static func bar(_ t: PublishedTick, width: Int) -> String {
        let filled = Int((t.fraction * Double(width)).rounded())
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        return "#\(t.transition) \(t.operation) \(t.phase) [\(bar)] fraction \(ReadCommands.format(t.fraction)) "
            + "progress \(ReadCommands.format(t.progress))"
    }
}

/// Heartbeats heard or missed: after three of the daemon's intervals without one (at least 3 s) the
/// view or the follower says so once, and again when they are back.
struct SilenceWatch {
    private(set) var limit: Duration
    private var last = ContinuousClock.now
    private(set) var silent = false

    init(heartbeat interval: Duration?) { limit = WatchModel.silenceLimit(heartbeat: interval) }

    /// Notes a heartbeat (its interval may have changed); true when it ends a silence.
    mutating func heard(_ heartbeat: JSONObject) -> Bool {
        last = ContinuousClock.now
        if let seconds = heartbeat["heartbeatSeconds"]?.doubleValue, seconds > 0 {
            limit = WatchModel.silenceLimit(heartbeat: .seconds(seconds))
        }
        defer { silent = false }
        return silent
    }

    /// True once, when the silence passes the limit.
    mutating func isNewlySilent() -> Bool {
        guard !silent, ContinuousClock.now - last > limit else { return false }
        silent = true
        return true
    }
}
