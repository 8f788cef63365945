extension NavigationCommand {
    /// Request members that belong to the envelope rather than to any command.
    package static let envelopeKeys: [String] = ["cmd", "id", "navigator", "expect", "owner"]

    /// Parses a command's arguments (`request` minus the envelope), rejecting unknown members by name.
    package init(name: String, arguments: JSONObject) throws(CoreError) {
        var args = Arguments(arguments, path: "", ignoring: Self.envelopeKeys)
        func options(_ args: inout Arguments) throws(CoreError) -> TransitionOptions {
            let animated = try args.bool("animated") ?? true
            let animator = args.raw("animator")
            if let animator { _ = try Animator(json: animator, base: .default) }
            return TransitionOptions(animated: animated, animator: animator)
        }
        func screen(_ args: inout Arguments, _ key: String) throws(CoreError) -> ScreenSpec {
            guard let value = args.raw(key) else {
                throw .missing(key, "\(name) needs a route name or {\"name\": ..., \"params\": {...}}")
            }
            return try ScreenSpec(json: value, path: key)
        }
        switch name {
        case "create":
            let root = try screen(&args, "root")
            let config = try NavigatorConfig(reading: &args)
            self = .create(root: root, config: config)
        case "close": self = .close
        case "push": self = .push(try screen(&args, "screen"), try options(&args))
        case "pop": self = .pop(try options(&args))
        case "popTo":
            guard let target = try args.string("screen") else {
                throw .missing("screen", "popTo needs a screen id (\"s3\") or a route name")
            }
            self = .popTo(target, try options(&args))
        case "popToRoot": self = .popToRoot(try options(&args))
        case "setStack":
            guard let list = try args.array("screens") else {
                throw .missing("screens", "setStack needs an array of screens, root first")
            }
            // Right type, too few elements: a value not allowed, like a number out of range.
            guard !list.isEmpty else {
                throw .notAllowed("screens", expected: "a non-empty array, root first", got: .array(list))
            }
            var refs: [ScreenRef] = []
            for (i, item) in list.enumerated() { refs.append(try ScreenRef(json: item, path: "screens[\(i)]")) }
            self = .setStack(refs, try options(&args))
        case "present": self = .present(try screen(&args, "screen"), try options(&args))
        case "dismiss": self = .dismiss(try options(&args))
        case "begin":
            var start: InteractiveStart?
            if let op = try args.string("operation") {
                switch op {
                case "pop": start = .pop
                case "dismiss": start = .dismiss
                case "push": start = .push(try screen(&args, "screen"))
                case "present": start = .present(try screen(&args, "screen"))
                default:
                    throw .notAllowed("operation", expected: "one of pop, push, dismiss, present", got: .string(op))
                }
            }
            let animator = args.raw("animator")
            if let animator { _ = try Animator(json: animator, base: .default) }
            if animator != nil, start == nil {
                // It would be dropped: the interrupted transition keeps the animator it started with.
                throw .malformed(
                    "animator goes with operation: an interrupting begin (no operation) keeps the transition's "
                        + "animator; give the release's with finish, cancel or end (animator, or completionSpeed and "
                        + "completionCurve).")
            }
            self = .begin(start, animator: animator, geometry: try GestureGeometry(reading: &args))
        case "update":
            // Any number is clamped to [0, 1], so percent has a type but no range to be out of.
            guard let percent = try args.double("percent") else {
                throw .missing("percent", "update needs a number, clamped to [0, 1]")
            }
            self = .update(
                percent: Self.clamped(percent), velocity: try Self.velocity(&args),
                geometry: try GestureGeometry(reading: &args))
        case "finish":
            let velocity = try Self.velocity(&args)
            let (speed, curve, animator) = try Self.completion(&args)
            self = .finish(
                velocity: velocity, completionSpeed: speed, completionCurve: curve ?? .easeInOut, animator: animator)
        case "cancel":
            let velocity = try Self.velocity(&args)
            let (speed, curve, animator) = try Self.completion(&args)
            self = .cancel(completionSpeed: speed, completionCurve: curve, velocity: velocity, animator: animator)
        case "end":
            let percent = try args.double("percent").map(Self.clamped)
            let velocity = try Self.velocity(&args)
            let animator = try args.raw("animator").map { raw throws(CoreError) in
                try CompletionAnimator(json: raw, path: args.name("animator"))
            }
            let geometry = try GestureGeometry(reading: &args)
            if percent == nil, !geometry.isEmpty {
                // No point is recorded without a percent, so they would be dropped.
                throw .malformed(
                    "touch, edge and time go with percent on end: they describe the point it records before "
                        + "deciding.")
            }
            self = .end(percent: percent, velocity: velocity, animator: animator, geometry: geometry)
        case "pause": self = .pause
        case "seek":
            guard let fraction = try args.double("fraction", in: 0...1) else {
                throw .missing("fraction", "seek needs a number in [0, 1]")
            }
            self = .seek(fraction: fraction, scrubsLinearly: try args.bool("scrubsLinearly") ?? true)
        case "resume": self = .resume
        default:
            throw CoreError(.unknownCommand, "Unknown command \"\(name.prefix(40))\".")
        }
        try args.rejectUnknown()
    }

    /// A percent in [0, 1], -0 as 0 (the reply echoes what was applied).
    static func clamped(_ percent: Double) -> Double { min(1, max(0, percent)) + 0 }

    private static func velocity(_ args: inout Arguments) throws(CoreError) -> Double? {
        try args.double("velocity", in: velocities)
    }

    private static func completion(_ args: inout Arguments) throws(CoreError) -> (
        Double, TimingCurve?, CompletionAnimator?
    ) {
        if let raw = args.raw("animator") {
            guard args.object["completionSpeed"] == nil, args.object["completionCurve"] == nil else {
                throw CoreError(
                    .badRequest,
                    "Give either animator or completionSpeed/completionCurve, not both: animator's durationFactor and curve replace them."
                )
            }
            _ = args.raw("completionSpeed")
            _ = args.raw("completionCurve")
            return (1, nil, try CompletionAnimator(json: raw, path: args.name("animator")))
        }
        let speed = try args.double("completionSpeed", in: completionSpeeds) ?? 1
        var curve: TimingCurve?
        if let raw = args.raw("completionCurve") {
            curve = try TimingCurve(json: raw, path: "completionCurve", springs: false)
        }
        return (speed, curve, nil)
    }

    /// `finish`'s and `cancel`'s `completionSpeed`.
    package static let completionSpeeds = 0.001...1000.0
    /// The velocities a gesture's `update`, `finish`, `cancel` and `end` take, fractions per second.
    package static let velocities = -VelocityEstimator.limit...VelocityEstimator.limit

    /// UIKit's completionCurve is a UIView.AnimationCurve: a timing shape, never a spring (a spring
    /// has its own duration, which a completion segment does not have).
    package static func isCompletionCurve(_ curve: TimingCurve) -> Bool {
        if case .spring = curve { return false }
        return true
    }

    /// The command's arguments as a request would carry them (without the envelope); parsing this
    /// back with `init(name:arguments:)` yields the same command. Queued commands are logged this way.
    package var arguments: JSONObject {
        func opts(_ o: TransitionOptions, _ base: JSONObject = [:]) -> JSONObject {
            var r = base
            if !o.animated { r["animated"] = false }
            if let a = o.animator { r["animator"] = a }
            return r
        }
        switch self {
        case .create(let root, let config):
            // Only what differs from the built-in config: a member given is kept by the daemon, one
            // left out takes the daemon's default (its configured animators, interaction timeout).
            var o: JSONObject = ["root": root.json]
            let plain = NavigatorConfig().json
            for (k, v) in config.json.objectValue?.members ?? [] where plain[k] != v { o[k] = v }
            return o
        case .close: return [:]
        case .push(let s, let o): return opts(o, ["screen": s.json])
        case .pop(let o): return opts(o)
        case .popTo(let target, let o): return opts(o, ["screen": .string(target)])
        case .popToRoot(let o): return opts(o)
        case .setStack(let refs, let o): return opts(o, ["screens": .array(refs.map(\.json))])
        case .present(let s, let o): return opts(o, ["screen": s.json])
        case .dismiss(let o): return opts(o)
        case .begin(let start, let animator, let geometry):
            var r: JSONObject = [:]
            switch start {
            case nil: break
            case .pop?: r["operation"] = "pop"
            case .dismiss?: r["operation"] = "dismiss"
            case .push(let s)?:
                r["operation"] = "push"
                r["screen"] = s.json
            case .present(let s)?:
                r["operation"] = "present"
                r["screen"] = s.json
            }
            if let animator { r["animator"] = animator }
            geometry.write(into: &r)
            return r
        case .update(let percent, let velocity, let geometry):
            var r: JSONObject = ["percent": .double(percent)]
            if let velocity { r["velocity"] = .double(velocity) }
            geometry.write(into: &r)
            return r
        case .finish(let velocity, let speed, let curve, let animator):
            return Self.completionArguments(speed, curve, velocity, animator)
        case .cancel(let speed, let curve, let velocity, let animator):
            return Self.completionArguments(speed, curve, velocity, animator)
        case .end(let percent, let velocity, let animator, let geometry):
            var r: JSONObject = [:]
            if let percent { r["percent"] = .double(percent) }
            if let velocity { r["velocity"] = .double(velocity) }
            if let animator { r["animator"] = animator.json }
            geometry.write(into: &r)
            return r
        case .pause, .resume: return [:]
        case .seek(let fraction, let scrubsLinearly):
            return ["fraction": .double(fraction), "scrubsLinearly": .bool(scrubsLinearly)]
        }
    }

    private static func completionArguments(
        _ speed: Double, _ curve: TimingCurve?, _ velocity: Double?, _ animator: CompletionAnimator?
    ) -> JSONObject {
        var r: JSONObject = [:]
        if let animator {
            r["animator"] = animator.json
        } else {
            r["completionSpeed"] = .double(speed)
            if let curve { r["completionCurve"] = curve.json }
        }
        if let velocity { r["velocity"] = .double(velocity) }
        return r
    }
}
