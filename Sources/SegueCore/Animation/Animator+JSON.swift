/// The wire form of animators (docs/protocol.md, "`create`"):
///
///     {"preset": "simpleOver.push", "style": "cover", "edge": "right", "duration": 0.5, "curve": "easeInOut",
///      "parallax": 0.3, "scale": 0.8, "offset": {"x": 0, "y": {"points": 55}}, "fade": false,
///      "keyframes": {...}}
///
/// Every key is optional: values come from `preset` when given, otherwise from `base` (the navigator's
/// rule-selected animator, so a command can override just the duration). `keyframes` goes with style
/// `keyframes` (which it implies when style is absent).
extension Animator {
    package static let jsonKeys = [
        "preset", "style", "edge", "duration", "curve", "parallax", "scale", "offset", "fade", "keyframes",
    ]

    /// Parses an animator at JSON path `path`. Throws naming the path of the first bad value or unknown key:
    /// `bad_request` for a wrong type, an unknown or missing key, `invalid_argument` for a value not allowed.
    package init(json: JSON, base: Animator = .default, path: String = "animator") throws(CoreError) {
        let reader = try AnimationJSONReader(json, path: path)
        try reader.allowOnly(Self.jsonKeys)
        var animator = base
        if let name = try reader.string("preset") {
            guard let preset = Animator.preset(named: name) else {
                throw .notAllowed(
                    "\(path).preset", expected: "one of \(Self.presetNames.joined(separator: ", "))", got: .string(name)
                )
            }
            animator = preset
        }
        if let name = try reader.string("style") {
            if name == "keyframes" {
                if !reader.has("keyframes"), case .keyframes = animator.style {
                    // keep the preset's or base's keyframes
                } else if !reader.has("keyframes") {
                    throw .missing("\(path).keyframes", "style \"keyframes\" needs its tracks")
                }
            } else if let style = TransitionStyle.named.first(where: { $0.name == name })?.style {
                // Members that do not go together are a shape error, like an unknown member.
                if reader.has("keyframes") {
                    throw .malformed("\(path).keyframes is only allowed with style \"keyframes\", not \"\(name)\".")
                }
                animator.style = style
            } else {
                let names = (TransitionStyle.named.map(\.name) + ["keyframes"]).joined(separator: ", ")
                throw .notAllowed("\(path).style", expected: "one of \(names)", got: .string(name))
            }
        }
        if let keyframesJSON = reader.object["keyframes"] {
            animator.style = .keyframes(try Keyframes(json: keyframesJSON, path: "\(path).keyframes"))
        }
        if let edgeJSON = reader.object["edge"] {
            if edgeJSON.isNull {
                animator.edge = nil
            } else if case .string(let name) = edgeJSON {
                guard let edge = Edge(rawValue: name) else {
                    throw .notAllowed(
                        "\(path).edge", expected: "one of right, left, top, bottom or null", got: edgeJSON)
                }
                animator.edge = edge
            } else {
                throw .wrongType(
                    "\(path).edge", expected: "an edge name (right, left, top, bottom) or null", got: edgeJSON)
            }
        }
        if let duration = try reader.number("duration") {
            guard duration > 0, duration <= 60 else {
                throw .invalid("\(path).duration must be in (0, 60] seconds; got \(JSON.messageText(duration)).")
            }
            animator.duration = duration
        }
        if let curveJSON = reader.object["curve"] {
            animator.curve = try TimingCurve(json: curveJSON, path: "\(path).curve")
        }
        try animator.options.apply(reader)
        self = animator
    }

    /// The complete wire form: every key is written (edge as null when it is the operation's default), so
    /// `Animator(json: a.json, base: anyBase) == a` whatever the base, and a recorded animator replays the
    /// same even if defaults change.
    package var json: JSON {
        var object: JSONObject = [
            "style": .string(style.name),
            "edge": edge.map { .string($0.rawValue) } ?? .null,
            "duration": .double(duration),
            "curve": curve.json,
            "parallax": .double(options.parallax),
            "scale": .double(options.scale),
            "offset": ["x": options.offsetX.json, "y": options.offsetY.json],
            "fade": .bool(options.fade),
        ]
        if case .keyframes(let keyframes) = style {
            object["keyframes"] = keyframes.json
        }
        return .object(object)
    }
}

extension StyleOptions {
    /// Reads the option keys of an animator object over the current values.
    mutating func apply(_ reader: AnimationJSONReader) throws(CoreError) {
        if let parallax = try reader.number("parallax", in: 0...1) { self.parallax = parallax }
        if let scale = try reader.number("scale", in: 0...10) { self.scale = scale }
        if let fade = try reader.bool("fade") { self.fade = fade }
        if let offsetJSON = reader.object["offset"] {
            let offset = try AnimationJSONReader(offsetJSON, path: "\(reader.path).offset")
            try offset.allowOnly(["x", "y"])
            if let x = offset.object["x"] {
                offsetX = try Length(json: x, path: "\(offset.path).x", allowsPoints: true)
            }
            if let y = offset.object["y"] {
                offsetY = try Length(json: y, path: "\(offset.path).y", allowsPoints: true)
            }
        }
    }
}
