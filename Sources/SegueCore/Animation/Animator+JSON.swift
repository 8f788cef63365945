/// The wire form of animators (DESIGN.md §4):
///
///     {"preset": "simpleOver.push", "style": "cover", "edge": "right", "duration": 0.5, "curve": "easeInOut",
///      "parallax": 0.3, "scale": 0.8, "offset": {"x": 0, "y": {"points": 55}}, "fade": false,
///      "keyframes": {...}}
///
/// Every key is optional: values come from `preset` when given, otherwise from `base` (the navigator's
/// rule-selected animator, so a command can override just the duration). `keyframes` goes with style
/// `keyframes` (which it implies when style is absent).
extension Animator {
    public static let jsonKeys = [
        "preset", "style", "edge", "duration", "curve", "parallax", "scale", "offset", "fade", "keyframes",
    ]

    /// Parses an animator at JSON path `path`. Throws `.invalidArgument` naming the path of the first bad
    /// value or unknown key.
    public init(json: JSON, base: Animator = .default, path: String = "animator") throws(CoreError) {
        let reader = try AnimationJSONReader(json, path: path)
        try reader.allowOnly(Self.jsonKeys)
        var animator = base
        if let name = try reader.string("preset") {
            guard let preset = Animator.preset(named: name) else {
                throw AnimationJSONReader.invalid(
                    "\(path).preset \"\(name)\" is not a preset; known presets are "
                        + "\(Self.presetNames.joined(separator: ", "))."
                )
            }
            animator = preset
        }
        if let name = try reader.string("style") {
            if name == "keyframes" {
                if !reader.has("keyframes"), case .keyframes = animator.style {
                    // keep the preset's or base's keyframes
                } else if !reader.has("keyframes") {
                    throw AnimationJSONReader.invalid("\(path).keyframes is required with style \"keyframes\".")
                }
            } else if let style = TransitionStyle.named.first(where: { $0.name == name })?.style {
                if reader.has("keyframes") {
                    throw AnimationJSONReader.invalid(
                        "\(path).keyframes is only allowed with style \"keyframes\", not \"\(name)\".")
                }
                animator.style = style
            } else {
                let names = (TransitionStyle.named.map(\.name) + ["keyframes"]).joined(separator: ", ")
                throw AnimationJSONReader.invalid("\(path).style \"\(name)\" is not a style; use one of \(names).")
            }
        }
        if let keyframesJSON = reader.object["keyframes"] {
            animator.style = .keyframes(try Keyframes(json: keyframesJSON, path: "\(path).keyframes"))
        }
        if let edgeJSON = reader.object["edge"] {
            if edgeJSON.isNull {
                animator.edge = nil
            } else if let name = edgeJSON.stringValue, let edge = Edge(rawValue: name) {
                animator.edge = edge
            } else {
                throw AnimationJSONReader.invalid(
                    "\(path).edge must be one of right, left, top, bottom or null; got "
                        + "\(AnimationJSONReader.describe(edgeJSON))."
                )
            }
        }
        if let duration = try reader.number("duration") {
            guard duration > 0, duration <= 60 else {
                throw AnimationJSONReader.invalid(
                    "\(path).duration must be in (0, 60] seconds; got \(AnimationJSONReader.format(duration)).")
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
    public var json: JSON {
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
