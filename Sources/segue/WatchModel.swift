import SegueClient
import SegueCore
import SegueProtocol

/// What `segue watch` shows: each navigator's stack and the transition in flight, kept current from
/// snapshots (a daemon), folded states (a replay), events alone (a publisher without a command
/// socket) and ticks. Rendering is `WatchLayout`'s.
struct WatchModel {
    /// One navigator, in the terms the view draws.
    struct Row: Equatable {
        var status = "open"
        var revision: Int64 = 0
        var stack: [(name: String, id: String)] = []
        var modals: [(name: String, id: String)] = []
        /// The transition in flight as the last state said (nil when idle or unknown).
        var transition: TransitionLine?
        /// The latest tick of the transition in flight, which supersedes `transition`.
        var tick: TickLine?
        /// The stack a transition in flight will leave, when an event said so (names for its ticks).
        var upcoming: [(name: String, id: String)] = []

        /// `Name[id]` for a screen id a tick names, from the stack or the transition the row knows.
        func label(of id: String) -> String {
            if let screen = (stack + modals + upcoming).first(where: { $0.id == id }) { return "\(screen.name)[\(id)]" }
            for known in [transition?.from, transition?.to, tick?.line.from, tick?.line.to]
            where known?.hasSuffix("[\(id)]") == true {
                return known!
            }
            return id
        }

        static func == (a: Row, b: Row) -> Bool {
            a.status == b.status && a.revision == b.revision && a.transition == b.transition && a.tick == b.tick
                && a.stack.map(\.id) == b.stack.map(\.id) && a.modals.map(\.id) == b.modals.map(\.id)
        }
    }

    struct TransitionLine: Equatable {
        var id: Int
        var operation: String
        var from: String
        var to: String
        var phase: String
        var fraction: Double
        var progress: Double
    }

    /// A tick as shown: progress, and the two views' values.
    struct TickLine: Equatable {
        var line: TransitionLine
        var final: Bool
        var from: JSONObject
        var to: JSONObject
    }

    private(set) var rows: [String: Row] = [:]
    /// The names of `rows` and `awaited`, as `NameOrder` sorts them: kept so, a name inserted where it
    /// goes when it first comes, since sorting 5,000 names at every redraw took `watch` a whole core
    /// and left it ever further behind.
    private(set) var orderedNames: [String] = []
    /// Counts the changes to `orderedNames`, so that what is worked out from them can be kept.
    private(set) var namesVersion = 0
    private(set) var frame: Int64 = 0
    /// The log position the view has seen (events, heartbeats, snapshots).
    private(set) var seq: Int64 = 0
    /// Navigators named on the command line that do not exist (yet): shown as waiting, so a typo is
    /// not an empty screen.
    var awaited: Set<String> = [] {
        didSet {
            // Sorted again only when a name comes, or one goes that has no row (not when it gets one).
            guard !awaited.isSubset(of: oldValue) || oldValue.subtracting(awaited).contains(where: { rows[$0] == nil })
            else { return }
            orderedNames = Set(rows.keys).union(awaited).sortedAsNumbered()
            namesVersion += 1
        }
    }
    /// Shown under the header: a silence, a connection in progress, the end of a replay.
    var notice: String?
    /// Stacks promised by `transition.started` events, applied at their `transition.completed`
    /// (a view fed by events alone).
    private var promised: [String: [Int64: [(name: String, id: String)]]] = [:]

    init(awaited: Set<String> = []) {
        self.awaited = awaited
        orderedNames = awaited.sortedAsNumbered()
    }

    /// Stores `row`; a navigator seen for the first time takes its place in `orderedNames`.
    private mutating func store(_ row: Row, for name: String) {
        guard rows.updateValue(row, forKey: name) == nil, !awaited.contains(name) else { return }
        // The first name that sorts after it (a binary search: names come by the thousand at a start).
        var low = 0
        var high = orderedNames.count
        while low < high {
            let middle = (low + high) / 2
            if NameOrder.ascending(name, orderedNames[middle]) { high = middle } else { low = middle + 1 }
        }
        orderedNames.insert(name, at: low)
        namesVersion += 1
    }

    mutating func set(_ s: NavigatorSnapshot) {
        var row = rows[s.navigator] ?? Row()
        row.status = s.status
        row.revision = s.revision
        row.stack = s.stack.map { ($0.name, $0.id) }
        row.modals = s.modals.map { ($0.name, $0.id) }
        row.transition = s.transition.map {
            TransitionLine(
                id: $0.id, operation: $0.operation, from: "\($0.from.name)[\($0.from.id)]",
                to: "\($0.to.name)[\($0.to.id)]", phase: $0.phase,
                fraction: $0.fraction, progress: $0.progress)
        }
        if row.transition == nil { row.tick = nil }
        store(row, for: s.navigator)
        seq = max(seq, s.seq)
        awaited.remove(s.navigator)
    }

    /// A navigator's state folded from the log (`watch --replay`).
    mutating func set(_ state: NavigatorState, frame: Int64) {
        guard state.status != .absent else { return }
        var row = rows[state.name] ?? Row()
        row.status = state.status.rawValue
        row.revision = state.revision
        row.stack = state.stack.map { ($0.name, $0.id) }
        row.modals = state.modals.map { ($0.name, $0.id) }
        row.transition = state.transition.map { t in
            let fraction = t.fraction(at: max(frame, state.frame))
            return TransitionLine(
                id: t.id, operation: t.operation.rawValue, from: "\(t.from.name)[\(t.from.id)]",
                to: "\(t.to.name)[\(t.to.id)]", phase: t.phase.rawValue,
                fraction: fraction,
                progress: fraction >= 1 ? 1 : t.animator.curve.progress(atFraction: fraction, duration: t.duration))
        }
        if row.transition == nil { row.tick = nil }
        store(row, for: state.name)
        awaited.remove(state.name)
    }

    /// An event, for a view that has no state to ask (a publisher alone): stacks from the events that
    /// say what they leave (`navigator.created`, `transition.started` then `.completed`).
    mutating func fold(_ e: EventRecord) {
        seq = max(seq, e.seq)
        var row = rows[e.navigator] ?? Row()
        row.revision = max(row.revision, e.revision)
        let id = e.data["transition"]?.int64Value ?? 0
        switch e.eventType {
        case .navigatorCreated?:
            row.stack = Self.screens(e.data["root"].map { JSON.array([$0]) }) ?? []
        case .navigatorClosed?:
            row.status = "closed"
        case .transitionStarted?:
            promised[e.navigator, default: [:]][id] = Self.screens(e.data["stack"])
            row.upcoming = (Self.screens(e.data["stack"]) ?? []) + (Self.screens(e.data["modals"]) ?? [])
        case .transitionCompleted?:
            if let stack = promised[e.navigator]?.removeValue(forKey: id) { row.stack = stack }
            row.tick = nil
        case .transitionCancelled?:
            promised[e.navigator]?[id] = nil
            row.tick = nil
        default:
            break
        }
        store(row, for: e.navigator)
        awaited.remove(e.navigator)
    }

    /// Notes the log position an event or heartbeat reports, and the heartbeat's frame: the header's
    /// frame moves on while nothing animates.
    mutating func heard(seq: Int64, frame: Int64? = nil) {
        self.seq = max(self.seq, seq)
        if let frame { self.frame = max(self.frame, frame) }
    }

    /// Applies a tick (by its JSON, as published or replayed).
    mutating func apply(tick json: JSONObject) {
        guard let navigator = json["navigator"]?.stringValue else { return }
        frame = max(frame, json["frame"]?.int64Value ?? 0)
        var row = rows[navigator] ?? Row()
        row.revision = max(row.revision, json["revision"]?.int64Value ?? 0)
        let views = json["views"]?.objectValue
        let from = views?["from"]?.objectValue ?? [:]
        let to = views?["to"]?.objectValue ?? [:]
        let line = TransitionLine(
            id: Int(json["transition"]?.int64Value ?? 0), operation: json["operation"]?.stringValue ?? "",
            from: row.label(of: from["screen"]?.stringValue ?? ""), to: row.label(of: to["screen"]?.stringValue ?? ""),
            phase: json["phase"]?.stringValue ?? "", fraction: json["fraction"]?.doubleValue ?? 0,
            progress: json["progress"]?.doubleValue ?? 0)
        let final = json["final"] == .bool(true)
        row.tick = final ? nil : TickLine(line: line, final: final, from: from, to: to)
        if final { row.transition = nil }
        store(row, for: navigator)
    }

    mutating func apply(_ tick: PublishedTick) { apply(tick: tick.json) }

    static func screens(_ value: JSON?) -> [(name: String, id: String)]? {
        value?.arrayValue?.compactMap { screen in
            guard let name = screen["name"]?.stringValue, let id = screen["id"]?.stringValue else { return nil }
            return (name, id)
        }
    }

    /// How long without a heartbeat before the view says it may be stale: three of the daemon's
    /// intervals (`ping`'s `heartbeatSeconds`, 1 s by default), at least 3 s.
    static func silenceLimit(heartbeat interval: Duration?) -> Duration {
        max(.seconds(3), (interval ?? .seconds(1)) * 3)
    }

    /// What `watch` and `view` say after `limit` without a heartbeat from the publish socket at
    /// `endpoint`: a daemon stopped, a link down, or an endpoint where segued does not publish.
    static func silence(after limit: Duration, from endpoint: String) -> String {
        "no heartbeat from segued at \(endpoint) for over \(seconds(limit)) s: the view may be stale (daemon "
            + "stopped, link down, or not its publish endpoint)"
    }

    /// `limit` in seconds, as short as it goes ("3", "4.5").
    static func seconds(_ limit: Duration) -> String {
        let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
        return seconds.rounded() == seconds ? String(Int(seconds)) : ReadCommands.format(seconds)
    }

    /// The line for a named navigator that does not exist yet.
    static func awaiting(_ name: String) -> String { "\(name): not created yet; waiting for it" }

    /// Whether the event changes the stack or the transition (so the state should be fetched again).
    static func needsState(_ event: EventRecord) -> Bool {
        event.eventType != .interactionUpdated
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
        switch event.eventType {
        case .navigatorCreated?:
            return screens(event.data["root"].map { JSON.array([$0]) }).map { stack($0, modals: []) }
        case .transitionStarted?:
            guard let stack = screens(event.data["stack"]) else { return nil }
            return Self.stack(stack, modals: screens(event.data["modals"]) ?? [])
        default:
            return nil
        }
    }

    /// `#1 push animating [#######.......] fraction 0.500 progress 0.623`
    static func bar(_ t: PublishedTick, width: Int) -> String {
        bar(
            TransitionLine(
                id: t.transition, operation: t.operation, from: "", to: "", phase: t.phase, fraction: t.fraction,
                progress: t.progress), width: width)
    }

    static func bar(_ t: TransitionLine, width: Int) -> String {
        let filled = max(0, min(width, Int((t.fraction * Double(width)).rounded())))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        return "#\(t.id) \(t.operation) \(t.phase) [\(bar)] fraction \(ReadCommands.format(t.fraction)) "
            + "progress \(ReadCommands.format(t.progress))"
    }
}

/// Heartbeats heard or missed: after three of the daemon's intervals without one (at least 3 s) the
/// view or the follower says so once, and again when they are back.
struct SilenceWatch {
    private(set) var limit: Duration
    private var last: ContinuousClock.Instant
    private(set) var silent = false

    init(heartbeat interval: Duration?, now: ContinuousClock.Instant = .now) {
        limit = WatchModel.silenceLimit(heartbeat: interval)
        last = now
    }

    /// Notes a heartbeat (its interval may have changed); true when it ends a silence.
    mutating func heard(_ heartbeat: Heartbeat, now: ContinuousClock.Instant = .now) -> Bool {
        last = now
        if heartbeat.heartbeatSeconds > 0 {
            limit = WatchModel.silenceLimit(heartbeat: .seconds(heartbeat.heartbeatSeconds))
        }
        defer { silent = false }
        return silent
    }

    /// Notes that the daemon answered or published (a `history` page read while catching up, an
    /// event): it is there, whatever waits unread behind that work in the heartbeats' queue. Ends no
    /// silence already said; the next heartbeat does.
    mutating func answered(now: ContinuousClock.Instant = .now) { last = max(last, now) }

    /// True once, when the silence passes the limit.
    mutating func isNewlySilent(now: ContinuousClock.Instant = .now) -> Bool {
        guard !silent, now - last > limit else { return false }
        silent = true
        return true
    }
}
