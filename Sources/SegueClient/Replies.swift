import SegueCore

/// The reply to a command that changes a navigator (docs/protocol.md, "Replies of navigation commands"): its new
/// revision, the last seq appended, and what started.
public struct CommandReply: Equatable, Sendable {
    public var navigator: String
    public var revision: Int64
    public var seq: Int64
    /// The frame the command took effect at.
    public var frame: Int64
    /// The id of the transition that started (or was interrupted), if any.
    public var transition: Int?
    /// `end`'s decision, and `finish`/`cancel`'s: `finish` or `cancel`.
    public var decision: String?
    /// `update`'s applied percent (clamped to [0, 1]).
    public var percent: Double?
    /// The phase of the transition in flight after the command, if one is.
    public var phase: String?
    /// Position in the queue when the command was queued (busy policy `queue`).
    public var queued: Int?
    /// The whole reply, for members not modelled here.
    public var json: JSONObject

    public init(_ json: JSONObject) throws(SegueClientError) {
        guard let revision = json["revision"]?.int64Value, let seq = json["seq"]?.int64Value else {
            throw .malformed("a command reply without revision and seq")
        }
        self.json = json
        self.navigator = json["navigator"]?.stringValue ?? ""
        self.revision = revision
        self.seq = seq
        self.frame = json["frame"]?.int64Value ?? 0
        self.transition = json["transition"]?.int64Value.map { Int($0) }
        self.decision = json["decision"]?.stringValue
        self.percent = json["percent"]?.doubleValue
        self.phase = json["phase"]?.stringValue
        self.queued = json["queued"]?.int64Value.map { Int($0) }
    }
}

/// `ping`: who answers, at what frame rate, and where its clock and log stand.
public struct Pong: Equatable, Sendable {
    public var version: String
    public var frameRate: Int
    public var frame: Int64
    public var seq: Int64
    /// How often the daemon publishes a heartbeat; nil from an older daemon that does not say.
    public var heartbeatInterval: Duration?
    /// The id of this run of the daemon (it changes at each start); nil from an older daemon.
    public var instance: String?
    /// The log's last seq when this run opened it; nil from an older daemon.
    public var since: Int64?

    public init(_ json: JSONObject) throws(SegueClientError) {
        guard let version = json["version"]?.stringValue, let rate = json["frameRate"]?.int64Value,
            let frame = json["frame"]?.int64Value, let seq = json["seq"]?.int64Value
        else { throw .malformed("a ping reply without version, frameRate, frame and seq") }
        self.version = version
        self.frameRate = Int(rate)
        self.frame = frame
        self.seq = seq
        heartbeatInterval = json["heartbeatSeconds"]?.doubleValue.flatMap { $0 > 0 ? .seconds($0) : nil }
        instance = json["instance"]?.stringValue
        since = json["since"]?.int64Value
    }
}

/// `state`: one navigator as of a seq.
public struct NavigatorSnapshot: Equatable, Sendable {
    public var navigator: String
    public var status: String
    public var revision: Int64
    public var seq: Int64
    public var frame: Int64
    /// Root first.
    public var stack: [Screen]
    /// Bottom first.
    public var modals: [Screen]
    public var transition: TransitionSnapshot?
    public var queued: Int
    public var json: JSONObject

    public init(_ json: JSONObject) throws(SegueClientError) {
        guard let navigator = json["navigator"]?.stringValue, let revision = json["revision"]?.int64Value,
            let seq = json["seq"]?.int64Value, let stack = json["stack"]?.arrayValue
        else { throw .malformed("a state reply without navigator, revision, seq and stack") }
        self.json = json
        self.navigator = navigator
        self.status = json["status"]?.stringValue ?? "open"
        self.revision = revision
        self.seq = seq
        self.frame = json["frame"]?.int64Value ?? 0
        self.stack = try Self.screens(stack)
        self.modals = try Self.screens(json["modals"]?.arrayValue ?? [])
        self.queued = Int(json["queued"]?.int64Value ?? 0)
        if let t = json["transition"]?.objectValue {
            transition = try TransitionSnapshot(t)
        }
    }

    static func screens(_ items: [JSON]) throws(SegueClientError) -> [Screen] {
        var out: [Screen] = []
        for item in items {
            do { out.append(try Screen(json: item, path: "stack")) } catch { throw .malformed(error.message) }
        }
        return out
    }
}

/// The transition in flight in a `state` reply.
public struct TransitionSnapshot: Equatable, Sendable {
    public var id: Int
    public var operation: String
    public var phase: String
    public var fraction: Double
    public var progress: Double
    public var interactive: Bool
    public var from: Screen
    public var to: Screen
    public var owner: String?

    public init(_ json: JSONObject) throws(SegueClientError) {
        guard let id = json["id"]?.int64Value, let operation = json["operation"]?.stringValue,
            let phase = json["phase"]?.stringValue, let fraction = json["fraction"]?.doubleValue,
            let from = json["from"], let to = json["to"]
        else { throw .malformed("a transition without id, operation, phase, fraction, from and to") }
        self.id = Int(id)
        self.operation = operation
        self.phase = phase
        self.fraction = fraction
        self.progress = json["progress"]?.doubleValue ?? fraction
        self.interactive = json["interactive"]?.boolValue ?? false
        do {
            self.from = try Screen(json: from, path: "transition.from")
            self.to = try Screen(json: to, path: "transition.to")
        } catch {
            throw .malformed(error.message)
        }
        self.owner = json["owner"]?.stringValue
    }
}

/// One page of `history`.
public struct HistoryPage: Equatable, Sendable {
    public var events: [EventRecord]
    /// The seq to pass as `after` for the next page.
    public var next: Int64
    public var more: Bool
    /// The run of the daemon that answered (`Pong.instance`); nil from an older daemon.
    public var instance: String?

    public init(_ json: JSONObject) throws(SegueClientError) {
        guard let items = json["events"]?.arrayValue, let next = json["next"]?.int64Value else {
            throw .malformed("a history reply without events and next")
        }
        var events: [EventRecord] = []
        for item in items {
            do { events.append(try EventRecord(json: item)) } catch { throw .malformed(error.message) }
        }
        self.events = events
        self.next = next
        self.more = json["more"]?.boolValue ?? false
        instance = json["instance"]?.stringValue
    }
}

/// One row of `list`.
public struct NavigatorSummary: Equatable, Sendable {
    public var navigator: String
    public var status: String
    public var revision: Int64
    public var depth: Int
    public var modals: Int
    public var top: Screen?
    /// `{"id", "operation", "phase"}` of the transition in flight, if any.
    public var transition: JSONObject?

    public init(_ json: JSONObject) throws(SegueClientError) {
        guard let name = json["navigator"]?.stringValue, let revision = json["revision"]?.int64Value else {
            throw .malformed("a list item without navigator and revision")
        }
        navigator = name
        status = json["status"]?.stringValue ?? "open"
        self.revision = revision
        depth = Int(json["depth"]?.int64Value ?? 0)
        modals = Int(json["modals"]?.int64Value ?? 0)
        if let top = json["top"], !top.isNull { self.top = try? Screen(json: top, path: "top") }
        transition = json["transition"]?.objectValue
    }
}
