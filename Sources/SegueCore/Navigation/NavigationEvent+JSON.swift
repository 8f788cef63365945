extension NavigationEvent {
    /// The `data` member of the wire event.
    package var data: JSONObject {
        switch kind {
        case .created(let root, let config, let rate):
            return ["root": root.json, "config": config.json, "frameRate": .int(rate)]
        case .closed:
            return [:]
        case .started(let s):
            var o: JSONObject = [
                "transition": .int(s.transition), "operation": .string(s.operation.rawValue),
                "from": s.from.json, "to": s.to.json, "popped": .array(s.popped.map(\.json)),
                "stack": .array(s.stack.map(\.json)), "modals": .array(s.modals.map(\.json)),
                "animator": s.animator.json, "animated": .bool(s.animated), "interactive": .bool(s.interactive),
                "nextScreen": .int(s.nextScreen),
            ]
            if let owner = s.owner { o["owner"] = .string(owner) }
            s.geometry.write(into: &o, timeKey: GestureGeometry.eventTimeKey)
            return o
        case .updated(let t, let percent, let velocity, let geometry, let estimated):
            var o: JSONObject = ["transition": .int(t), "percent": .double(percent), "velocity": .double(velocity)]
            if estimated { o["estimated"] = true }
            geometry.write(into: &o, timeKey: GestureGeometry.eventTimeKey)
            return o
        case .interrupted(let t, let fraction, let owner, let geometry):
            var o: JSONObject = ["transition": .int(t), "fraction": .double(fraction)]
            if let owner { o["owner"] = .string(owner) }
            geometry.write(into: &o, timeKey: GestureGeometry.eventTimeKey)
            return o
        case .finishing(let t, let fraction, let velocity, let speed, let curve):
            var o: JSONObject = [
                "transition": .int(t), "fraction": .double(fraction), "completionSpeed": .double(speed),
                "completionCurve": curve.json,
            ]
            if let velocity { o["velocity"] = .double(velocity) }
            return o
        case .cancelling(let t, let fraction, let speed, let curve, let reason, let velocity):
            var o: JSONObject = [
                "transition": .int(t), "fraction": .double(fraction), "completionSpeed": .double(speed),
                "completionCurve": curve.json, "reason": .string(reason.rawValue),
            ]
            if let velocity { o["velocity"] = .double(velocity) }
            return o
        case .reversed(let t, let fraction, let velocity, let speed):
            return [
                "transition": .int(t), "fraction": .double(fraction), "velocity": .double(velocity),
                "completionSpeed": .double(speed),
            ]
        case .paused(let t, let fraction), .resumed(let t, let fraction):
            return ["transition": .int(t), "fraction": .double(fraction)]
        case .seeked(let t, let fraction, let scrubsLinearly):
            return ["transition": .int(t), "fraction": .double(fraction), "scrubsLinearly": .bool(scrubsLinearly)]
        case .completed(let t):
            return ["transition": .int(t)]
        case .cancelled(let t, let reason):
            return ["transition": .int(t), "reason": .string(reason.rawValue)]
        case .queued(let request, let position, let transition):
            var data: JSONObject = ["request": .object(Self.request(request)), "position": .int(position)]
            if let transition { data["transition"] = .int(transition) }
            return data
        case .dropped(let request, let code, let message, let transition):
            var data: JSONObject = [
                "request": .object(Self.request(request)),
                "error": ["code": .string(code.rawValue), "message": .string(message)],
            ]
            if let transition { data["transition"] = .int(transition) }
            return data
        }
    }

    private static func request(_ command: NavigationCommand) -> JSONObject {
        var o: JSONObject = ["cmd": .string(command.name)]
        for (k, v) in command.arguments.members { o[k] = v }
        return o
    }

    /// Decodes a stored event. An unknown type or version is an error, never a crash.
    package init(type: String, version: Int, frame: Int64, command: String?, data: JSONObject) throws(CoreError) {
        guard version == Self.currentVersion else {
            var error = CoreError(
                .internal,
                "Event type \(type) version \(version) is not known to this build (knows \(Self.currentVersion)).")
            error.unknownToThisBuild = true
            throw error
        }
        var reader = EventDataReader(type: type, d: Arguments(data, path: "\(type).data"))
        let kind = try reader.kind()
        try reader.d.rejectUnknown()
        self.init(frame: frame, command: command, kind: kind)
    }

    /// Decodes the navigation event inside a stored record.
    package init(record: EventRecord) throws(CoreError) {
        try self.init(
            type: record.type, version: record.version, frame: record.frame, command: record.command, data: record.data)
    }

    /// Places the event in the log: the envelope the store and publisher carry.
    package func record(seq: Int64, navigator: String, revision: Int64, time: Int64) -> EventRecord {
        EventRecord(seq: seq, navigator: navigator, revision: revision, time: time, event: self)
    }
}

/// Reads a stored event's `data` by its `type`: every member required where the writer always puts it.
private struct EventDataReader {
    let type: String
    var d: Arguments

    mutating func kind() throws(CoreError) -> NavigationEvent.Kind {
        switch EventType(rawValue: type) {
        case .navigatorCreated?:
            let root = try screen("root")
            guard let config = d.raw("config") else { throw missing("config") }
            return .created(root: root, config: try NavigatorConfig(json: config), frameRate: try int("frameRate"))
        case .navigatorClosed?:
            return .closed
        case .transitionStarted?:
            return .started(try started())
        case .interactionUpdated?:
            return .updated(
                transition: try int("transition"), percent: try double("percent"), velocity: try double("velocity"),
                geometry: try geometry(), estimated: try d.bool("estimated") ?? false)
        case .transitionInterrupted?:
            return .interrupted(
                transition: try int("transition"), fraction: try double("fraction"), owner: try d.string("owner"),
                geometry: try geometry())
        case .transitionFinishing?:
            return .finishing(
                transition: try int("transition"), fraction: try double("fraction"), velocity: try d.double("velocity"),
                completionSpeed: try double("completionSpeed"), completionCurve: try curve())
        case .transitionCancelling?:
            return .cancelling(
                transition: try int("transition"), fraction: try double("fraction"),
                completionSpeed: try double("completionSpeed"), completionCurve: try curve(), reason: try reason(),
                velocity: try d.double("velocity"))
        case .transitionReversed?:
            return .reversed(
                transition: try int("transition"), fraction: try double("fraction"), velocity: try double("velocity"),
                completionSpeed: try double("completionSpeed"))
        case .transitionPaused?:
            return .paused(transition: try int("transition"), fraction: try double("fraction"))
        case .transitionSeeked?:
            return .seeked(
                transition: try int("transition"), fraction: try double("fraction"),
                scrubsLinearly: try d.required("scrubsLinearly") { (a: inout Arguments, key) throws(CoreError) in
                    try a.bool(key)
                })
        case .transitionResumed?:
            return .resumed(transition: try int("transition"), fraction: try double("fraction"))
        case .transitionCompleted?:
            return .completed(transition: try int("transition"))
        case .transitionCancelled?:
            return .cancelled(transition: try int("transition"), reason: try reason())
        case .transitionQueued?:
            return .queued(
                request: try request(), position: try int("position"), transition: try optionalInt("transition"))
        case .transitionDropped?:
            let req = try request()
            guard let e = try d.object("error"), let c = e["code"]?.stringValue, let code = ErrorCode(rawValue: c),
                let message = e["message"]?.stringValue
            else { throw CoreError(.badRequest, "\(type).data.error must be {code, message}.") }
            return .dropped(request: req, code: code, message: message, transition: try optionalInt("transition"))
        case nil:
            var error = CoreError(.badRequest, "Unknown event type \"\(type.prefix(64))\".")
            error.unknownToThisBuild = true
            throw error
        }
    }

    private mutating func started() throws(CoreError) -> NavigationEvent.Started {
        guard let op = try d.string("operation"), let operation = TransitionOperation(rawValue: op) else {
            throw CoreError(.badRequest, "\(type).data.operation must be push, pop, present or dismiss.")
        }
        guard let animator = d.raw("animator") else { throw missing("animator") }
        return NavigationEvent.Started(
            transition: try int("transition"), operation: operation, from: try screen("from"),
            to: try screen("to"), popped: try screens("popped"), stack: try screens("stack"),
            modals: try screens("modals"), animator: try Animator(json: animator, base: .default),
            animated: try d.bool("animated") ?? true, interactive: try d.bool("interactive") ?? false,
            owner: try d.string("owner"), nextScreen: try int("nextScreen"), geometry: try geometry())
    }

    private mutating func geometry() throws(CoreError) -> GestureGeometry {
        try GestureGeometry(reading: &d, timeKey: GestureGeometry.eventTimeKey)
    }

    private func missing(_ key: String) -> CoreError { CoreError(.badRequest, "\(type).data.\(key) is required.") }

    private mutating func int(_ k: String) throws(CoreError) -> Int {
        guard let v = try d.int(k), let i = Int(exactly: v) else { throw missing(k) }
        return i
    }

    /// A member older logs lack: nil when absent.
    private mutating func optionalInt(_ k: String) throws(CoreError) -> Int? {
        guard let v = try d.int(k) else { return nil }
        guard let i = Int(exactly: v) else { throw missing(k) }
        return i
    }

    private mutating func double(_ k: String) throws(CoreError) -> Double {
        try d.required(k) { (a: inout Arguments, key) throws(CoreError) in try a.double(key) }
    }

    private mutating func screen(_ k: String) throws(CoreError) -> Screen {
        guard let v = d.raw(k) else { throw missing(k) }
        return try Screen(json: v, path: "\(type).data.\(k)")
    }

    private mutating func screens(_ k: String) throws(CoreError) -> [Screen] {
        guard let list = try d.array(k) else { throw missing(k) }
        var out: [Screen] = []
        for (i, item) in list.enumerated() { out.append(try Screen(json: item, path: "\(type).data.\(k)[\(i)]")) }
        return out
    }

    private mutating func reason() throws(CoreError) -> CancelReason {
        guard let r = try d.string("reason"), let reason = CancelReason(rawValue: r) else {
            throw CoreError(.badRequest, "\(type).data.reason must be requested, timeout or recovery.")
        }
        return reason
    }

    private mutating func curve() throws(CoreError) -> TimingCurve {
        guard let raw = d.raw("completionCurve") else { throw missing("completionCurve") }
        return try TimingCurve(json: raw)
    }

    private mutating func request() throws(CoreError) -> NavigationCommand {
        guard let r = try d.object("request"), let name = r["cmd"]?.stringValue else {
            throw CoreError(.badRequest, "\(type).data.request must be a command object.")
        }
        return try NavigationCommand(name: name, arguments: r)
    }
}
