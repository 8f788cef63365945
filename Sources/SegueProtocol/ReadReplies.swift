import SegueCore

/// `ping`: who answers, at what frame rate, and where its clock and log stand.
public struct Pong: Equatable, Sendable {
    public var version: String
    public var frameRate: Int
    public var frame: Int64
    public var seq: Int64
    /// How often the daemon publishes a heartbeat, in seconds; nil from a daemon that does not say.
    public var heartbeatSeconds: Double?
    /// The id of this run of the daemon (it changes at each start); nil from an older daemon.
    public var instance: String?
    /// The log's last seq when this run opened it; nil from an older daemon.
    public var since: Int64?
    /// The daemon's wall clock when it handled the ping, Unix ns (the clock frames count on); nil from
    /// an older daemon. With the round trip, it gives the offset of the client's clock (`ClockSample`).
    public var clock: Int64?

    public var heartbeatInterval: Duration? { heartbeatSeconds.flatMap { $0 > 0 ? .seconds($0) : nil } }

    public init(
        version: String, frameRate: Int, frame: Int64, seq: Int64, heartbeatSeconds: Double?, instance: String?,
        since: Int64?, clock: Int64? = nil
    ) {
        self.version = version
        self.frameRate = frameRate
        self.frame = frame
        self.seq = seq
        self.heartbeatSeconds = heartbeatSeconds
        self.instance = instance
        self.since = since
        self.clock = clock
    }

    public func json(id: String?) -> JSON {
        var fields: JSONObject = [
            "version": .string(version), "frameRate": .int(Int64(frameRate)), "frame": .int(frame), "seq": .int(seq),
        ]
        if let heartbeatSeconds { fields["heartbeatSeconds"] = .double(heartbeatSeconds) }
        if let instance { fields["instance"] = .string(instance) }
        if let since { fields["since"] = .int(since) }
        if let clock { fields["clock"] = .int(clock) }
        return Reply.ok(id: id, fields)
    }

    public init(_ json: JSONObject) throws(WireError) {
        guard let version = json["version"]?.stringValue, let rate = json["frameRate"]?.int64Value,
            let frame = json["frame"]?.int64Value, let seq = json["seq"]?.int64Value
        else { throw .malformed("a ping reply without version, frameRate, frame and seq") }
        self.init(
            version: version, frameRate: Int(rate), frame: frame, seq: seq,
            heartbeatSeconds: json["heartbeatSeconds"]?.doubleValue, instance: json["instance"]?.stringValue,
            since: json["since"]?.int64Value, clock: json["clock"]?.int64Value)
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
    /// The digest of the state at `revision` (docs/protocol.md, "State digests"); nil from an older
    /// daemon.
    public var digest: String?
    public var json: JSONObject

    /// The members of the reply for `state` as of `seq`, its transition shown at `frame`.
    public static func encode(_ state: NavigatorState, seq: Int64, frame: Int64) -> JSONObject {
        [
            "navigator": .string(state.name), "revision": .int(state.revision), "seq": .int(seq), "frame": .int(frame),
            "status": .string(state.status.rawValue), "stack": .array(state.stack.map(\.json)),
            "modals": .array(state.modals.map(\.json)),
            "transition": state.transition.map { TransitionSnapshot.encode($0, at: max(frame, state.frame)) } ?? .null,
            "queued": .int(Int64(state.queue.count)),
            "digest": .string(StateDigest.digest(of: state).hex),
        ]
    }

    public init(_ json: JSONObject) throws(WireError) {
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
        self.digest = json["digest"]?.stringValue
        if let t = json["transition"]?.objectValue {
            transition = try TransitionSnapshot(t)
        }
    }

    static func screens(_ items: [JSON]) throws(WireError) -> [Screen] {
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
    /// The stack (root first) and modals (bottom first) the navigator has once the transition
    /// completes: what its `transition.started` said, which a late joiner drops with the events the
    /// snapshot covers, so it folds the `transition.completed` with these. nil from an older daemon.
    public var targetStack: [Screen]?
    public var targetModals: [Screen]?

    /// `t` as of `frame`: its fraction, and the animator's curve at that fraction.
    public static func encode(_ t: Transition, at frame: Int64) -> JSON {
        let fraction = t.fraction(at: frame)
        return [
            "id": .int(Int64(t.id)), "operation": .string(t.operation.rawValue), "phase": .string(t.phase.rawValue),
            "fraction": .double(fraction),
            "progress": .double(
                fraction >= 1 ? 1 : t.animator.curve.progress(atFraction: fraction, duration: t.duration)),
            "from": t.from.json, "to": t.to.json, "interactive": .bool(t.interactive),
            "owner": t.owner.map(JSON.string) ?? .null,
            "target": ["stack": .array(t.targetStack.map(\.json)), "modals": .array(t.targetModals.map(\.json))],
        ]
    }

    public init(_ json: JSONObject) throws(WireError) {
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
        if let target = json["target"]?.objectValue {
            guard let stack = target["stack"]?.arrayValue, let modals = target["modals"]?.arrayValue else {
                throw .malformed("a transition target without stack and modals")
            }
            targetStack = try NavigatorSnapshot.screens(stack)
            targetModals = try NavigatorSnapshot.screens(modals)
        }
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

    public init(events: [EventRecord], next: Int64, more: Bool, instance: String?) {
        self.events = events
        self.next = next
        self.more = more
        self.instance = instance
    }

    public func json(id: String?) -> JSON {
        var fields: JSONObject = ["events": .array(events.map(\.json)), "next": .int(next), "more": .bool(more)]
        // Which run answered: a client filling a gap must know whether these events come from the log
        // it has been following (see `ping`).
        if let instance { fields["instance"] = .string(instance) }
        return Reply.ok(id: id, fields)
    }

    public init(_ json: JSONObject) throws(WireError) {
        guard let items = json["events"]?.arrayValue, let next = json["next"]?.int64Value else {
            throw .malformed("a history reply without events and next")
        }
        var events: [EventRecord] = []
        for item in items {
            do { events.append(try EventRecord(json: item, unknownMembers: .ignore)) } catch {
                throw .malformed(error.message)
            }
        }
        self.init(
            events: events, next: next, more: json["more"]?.boolValue ?? false, instance: json["instance"]?.stringValue)
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

    /// The `list` reply: a row per navigator, in the order given, and the log's last seq.
    public static func encodeList(id: String?, _ states: [NavigatorState], seq: Int64) -> JSON {
        Reply.ok(id: id, ["navigators": .array(states.map(encode)), "seq": .int(seq)])
    }

    static func encode(_ s: NavigatorState) -> JSON {
        let transition: JSON =
            s.transition.map {
                [
                    "id": .int(Int64($0.id)), "operation": .string($0.operation.rawValue),
                    "phase": .string($0.phase.rawValue),
                ]
            } ?? .null
        return [
            "navigator": .string(s.name), "status": .string(s.status.rawValue), "revision": .int(s.revision),
            "depth": .int(Int64(s.stack.count)), "modals": .int(Int64(s.modals.count)), "top": s.top?.json ?? .null,
            "transition": transition,
        ]
    }

    public init(_ json: JSONObject) throws(WireError) {
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
