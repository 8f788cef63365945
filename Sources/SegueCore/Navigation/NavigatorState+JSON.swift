/// The snapshot form of a navigator's state: everything `evolve` has folded, so that start-up reads
/// the newest snapshot and only the tail of the log (docs/design.md, "The store").
extension NavigatorState {
    package static let snapshotVersion: Int64 = 1

    package var json: JSON {
        var o: JSONObject = [
            "version": .int(Self.snapshotVersion), "name": .string(name), "status": .string(status.rawValue),
            "revision": .int(revision), "frame": .int(frame), "frameRate": .int(clock.rate), "config": config.json,
            "stack": .array(stack.map(\.json)), "modals": .array(modals.map(\.json)),
            "nextScreen": .int(nextScreenNumber), "nextTransition": .int(nextTransitionID),
            "ended": .array(
                ended.map { e in
                    ["transition": e.transition.json, "endFrame": .int(e.endFrame), "phase": .string(e.phase.rawValue)]
                }),
            "queue": .array(
                queue.map { q in
                    var r: JSONObject = ["cmd": .string(q.command.name)]
                    for (k, v) in q.command.arguments.members { r[k] = v }
                    var entry: JSONObject = ["request": .object(r), "id": q.requestID.map(JSON.string) ?? .null]
                    if let transition = q.transition { entry["transition"] = .int(Int64(transition)) }
                    return .object(entry)
                }),
        ]
        if let transition { o["transition"] = transition.json }
        return .object(o)
    }

    package init(json: JSON) throws(CoreError) {
        var a = try Arguments(json, path: "snapshot")
        guard try a.int("version") == Self.snapshotVersion else {
            throw CoreError(.internal, "Snapshot version is not \(Self.snapshotVersion); rebuild from the log.")
        }
        func req<T>(_ k: String, _ v: T?) throws(CoreError) -> T {
            guard let v else { throw CoreError(.internal, "snapshot.\(k) is missing or mistyped.") }
            return v
        }
        let name = try req("name", a.string("name"))
        let clock = try FrameClock(rate: Int(try req("frameRate", a.int("frameRate"))))
        self.init(name: name, clock: clock)
        status = try req("status", Status(rawValue: try a.string("status") ?? ""))
        revision = try req("revision", a.int("revision"))
        frame = try req("frame", a.int("frame"))
        config = try NavigatorConfig(json: try req("config", a.raw("config")))
        stack = try Self.screens(try req("stack", a.array("stack")), "stack")
        modals = try Self.screens(try req("modals", a.array("modals")), "modals")
        nextScreenNumber = Int(try req("nextScreen", a.int("nextScreen")))
        nextTransitionID = Int(try req("nextTransition", a.int("nextTransition")))
        if let t = a.raw("transition") { transition = try Transition(json: t) }
        for item in try req("ended", a.array("ended")) {
            var e = try Arguments(item, path: "snapshot.ended")
            ended.append(
                EndedTransition(
                    transition: try Transition(json: try req("ended.transition", e.raw("transition"))),
                    endFrame: try req("ended.endFrame", e.int("endFrame")),
                    phase: try req("ended.phase", TransitionPhase(rawValue: try e.string("phase") ?? ""))))
        }
        for item in try req("queue", a.array("queue")) {
            var q = try Arguments(item, path: "snapshot.queue")
            let request = try req("queue.request", q.object("request"))
            let command = try NavigationCommand(name: request["cmd"]?.stringValue ?? "", arguments: request)
            queue.append(
                QueuedCommand(
                    command: command, requestID: try q.string("id"), transition: try q.int("transition").map { Int($0) }
                ))
        }
        try a.rejectUnknown()
    }

    static func screens(_ list: [JSON], _ path: String) throws(CoreError) -> [Screen] {
        var out: [Screen] = []
        for (i, s) in list.enumerated() { out.append(try Screen(json: s, path: "snapshot.\(path)[\(i)]")) }
        return out
    }
}

extension Transition {
    var json: JSON {
        var o: JSONObject = [
            "id": .int(id), "operation": .string(operation.rawValue), "from": from.json, "to": to.json,
            "popped": .array(popped.map(\.json)), "stack": .array(targetStack.map(\.json)),
            "modals": .array(targetModals.map(\.json)), "animator": animator.json, "animated": .bool(animated),
            "interactive": .bool(interactive), "phase": .string(phase.rawValue), "startFrame": .int(startFrame),
            "segment": [
                "startFrame": .int(segment.startFrame), "startFraction": .double(segment.startFraction),
                "endFraction": .double(segment.endFraction), "frames": .double(segment.frames),
                "curve": segment.curve.json,
            ],
            "percent": .double(percent), "velocity": .double(velocity),
            "lastInteractionFrame": .int(lastInteractionFrame), "cancelReason": .string(cancelReason.rawValue),
        ]
        if let owner { o["owner"] = .string(owner) }
        if let seconds = segment.seconds { o["segmentSeconds"] = .double(seconds) }
        writeGesture(into: &o)
        return .object(o)
    }

    init(json: JSON) throws(CoreError) {
        var a = try Arguments(json, path: "snapshot.transition")
        func req<T>(_ k: String, _ v: T?) throws(CoreError) -> T {
            guard let v else { throw CoreError(.internal, "snapshot.transition.\(k) is missing or mistyped.") }
            return v
        }
        func screen(_ k: String) throws(CoreError) -> Screen {
            try Screen(json: try req(k, a.raw(k)), path: "snapshot.transition.\(k)")
        }
        var seg = try Arguments(try req("segment", a.raw("segment")), path: "snapshot.transition.segment")
        let segment = Segment(
            startFrame: try req("segment.startFrame", seg.int("startFrame")),
            startFraction: try req("segment.startFraction", seg.double("startFraction")),
            endFraction: try req("segment.endFraction", seg.double("endFraction")),
            frames: try req("segment.frames", seg.double("frames")),
            curve: try TimingCurve(json: try req("segment.curve", seg.raw("curve"))))
        try seg.rejectUnknown()
        self.init(
            id: Int(try req("id", a.int("id"))),
            operation: try req("operation", TransitionOperation(rawValue: try a.string("operation") ?? "")),
            from: try screen("from"), to: try screen("to"),
            popped: try NavigatorState.screens(try req("popped", a.array("popped")), "transition.popped"),
            targetStack: try NavigatorState.screens(try req("stack", a.array("stack")), "transition.stack"),
            targetModals: try NavigatorState.screens(try req("modals", a.array("modals")), "transition.modals"),
            animator: try Animator(json: try req("animator", a.raw("animator")), base: .default),
            animated: try req("animated", a.bool("animated")),
            interactive: try req("interactive", a.bool("interactive")),
            owner: try a.string("owner"),
            phase: try req("phase", TransitionPhase(rawValue: try a.string("phase") ?? "")),
            startFrame: try req("startFrame", a.int("startFrame")), segment: segment,
            percent: try req("percent", a.double("percent")), velocity: try req("velocity", a.double("velocity")),
            lastInteractionFrame: try req("lastInteractionFrame", a.int("lastInteractionFrame")),
            cancelReason: try req("cancelReason", CancelReason(rawValue: try a.string("cancelReason") ?? "")))
        self.segment.seconds = try a.double("segmentSeconds")
        try readGesture(&a)
        try a.rejectUnknown()
    }
}
