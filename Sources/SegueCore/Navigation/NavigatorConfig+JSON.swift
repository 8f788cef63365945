extension NavigatorConfig {
    /// The `create` arguments beyond `root`, and the `config` recorded in `navigator.created`.
    package static let keys: [String] = [
        "animators", "busy", "queueLimit", "endRule", "container", "interactionTimeout", "maxDepth", "retarget",
    ]

    /// Reads the config members of `args` (others are left for the caller to read or reject).
    package init(reading args: inout Arguments) throws(CoreError) {
        self.init()
        if let rules = args.raw("animators") {
            animators = try AnimatorRules(json: rules, path: args.name("animators"))
        }
        if let busy = try args.string("busy") {
            guard let policy = BusyPolicy(rawValue: busy) else {
                throw .notAllowed(args.name("busy"), expected: "\"reject\" or \"queue\"", got: .string(busy))
            }
            self.busy = policy
        }
        if let limit = try args.int(
            "queueLimit", in: Int64(Self.queueLimitRange.lowerBound)...Int64(Self.queueLimitRange.upperBound))
        {
            queueLimit = Int(limit)
        }
        if let rule = try args.object("endRule") {
            var r = Arguments(rule, path: args.name("endRule"))
            endRule.threshold = try r.double("threshold", in: 0...1) ?? endRule.threshold
            endRule.velocityImpact = try r.double("velocityImpact", in: 0...10) ?? endRule.velocityImpact
            endRule.flingVelocity = try r.double("flingVelocity", in: 0...1000) ?? endRule.flingVelocity
            try r.rejectUnknown(allowedHint: "An end rule has threshold, velocityImpact and flingVelocity.")
        }
        if let size = try args.object("container") {
            var c = Arguments(size, path: args.name("container"))
            let points = "a number of points in [1, 100000]"
            guard let width = try c.double("width", in: 1...100_000) else { throw .missing(c.name("width"), points) }
            guard let height = try c.double("height", in: 1...100_000) else {
                throw .missing(c.name("height"), points)
            }
            try c.rejectUnknown(allowedHint: "A container has width and height in points.")
            container = ContainerSize(width: width, height: height)
        }
        interactionTimeout = try args.double("interactionTimeout", in: 0.1...86_400) ?? interactionTimeout
        if let depth = try args.int(
            "maxDepth", in: Int64(Self.maxDepthRange.lowerBound)...Int64(Self.maxDepthRange.upperBound))
        {
            maxDepth = Int(depth)
        }
        retarget = try args.bool("retarget") ?? retarget
    }

    package init(json: JSON) throws(CoreError) {
        var args = try Arguments(json, path: "config")
        try self.init(reading: &args)
        try args.rejectUnknown()
    }

    package var json: JSON {
        var o: JSONObject = [
            "animators": animators.json,
            "busy": .string(busy.rawValue),
            "queueLimit": .int(queueLimit),
            "endRule": [
                "threshold": .double(endRule.threshold), "velocityImpact": .double(endRule.velocityImpact),
                "flingVelocity": .double(endRule.flingVelocity),
            ],
            "interactionTimeout": .double(interactionTimeout),
            "maxDepth": .int(maxDepth),
        ]
        if let container { o["container"] = ["width": .double(container.width), "height": .double(container.height)] }
        // Only when on: the config of every navigator created before it existed reads the same.
        if retarget { o["retarget"] = .bool(true) }
        return .object(o)
    }
}
