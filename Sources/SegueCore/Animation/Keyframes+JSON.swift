/// The wire form of keyframes, the `keyframes` member of an animator:
///
///     {"from": {"z": 0, "anchor": [0.5, 0.5], "tracks": {"alpha": [{"time": 0, "value": 1}, ...]}},
///      "to": {...}}
///
/// A key is `{"time": 0...1, "value": number or {"points": n} (x and y only), "curve": curve}` with the
/// curve (default `linear`, never a spring) shaping the segment that ends at that key.
extension Keyframes {
    package init(json: JSON, path: String = "keyframes") throws(CoreError) {
        let reader = try AnimationJSONReader(json, path: path)
        try reader.allowOnly(["from", "to"])
        self.init(
            from: try ViewKeyframes(json: reader.object["from"] ?? [:], path: "\(path).from", defaultZ: 0),
            to: try ViewKeyframes(json: reader.object["to"] ?? [:], path: "\(path).to", defaultZ: 1))
    }

    package var json: JSON { ["from": from.json, "to": to.json] }
}

extension ViewKeyframes {
    init(json: JSON, path: String, defaultZ: Int) throws(CoreError) {
        let reader = try AnimationJSONReader(json, path: path)
        try reader.allowOnly(["z", "anchor", "tracks"])
        var z = defaultZ
        if let value = reader.object["z"] { z = Int(try value.integer(at: "\(path).z", in: -1000...1000)) }
        var anchor = (x: 0.5, y: 0.5)
        if let value = reader.object["anchor"] {
            // Two numbers are the type of a point: another count is a shape error, like a bezier of three.
            guard let items = value.arrayValue, items.count == 2 else {
                throw .wrongType("\(path).anchor", expected: "[x, y], two numbers (unit square)", got: value)
            }
            anchor = (try items[0].number(at: "\(path).anchor[0]"), try items[1].number(at: "\(path).anchor[1]"))
        }
        var tracks: [AnimatableProperty: [Keyframe]] = [:]
        if let value = reader.object["tracks"] {
            let tracksReader = try AnimationJSONReader(value, path: "\(path).tracks")
            try tracksReader.allowOnly(AnimatableProperty.allCases.map(\.rawValue))
            for (key, keysJSON) in tracksReader.object.members {
                guard let property = AnimatableProperty(rawValue: key) else { continue }
                tracks[property] = try Self.track(json: keysJSON, property: property, path: "\(path).tracks.\(key)")
            }
        }
        self.init(z: z, anchorX: anchor.x, anchorY: anchor.y, tracks: tracks)
    }

    private static func track(json: JSON, property: AnimatableProperty, path: String) throws(CoreError) -> [Keyframe] {
        let expected = "an array of 1 to 64 keyframes"
        guard let items = json.arrayValue else { throw .wrongType(path, expected: expected, got: json) }
        guard !items.isEmpty, items.count <= 64 else { throw .notAllowed(path, expected: expected, got: json) }
        var keys: [Keyframe] = []
        for (index, item) in items.enumerated() {
            let keyPath = "\(path)[\(index)]"
            let reader = try AnimationJSONReader(item, path: keyPath)
            try reader.allowOnly(["time", "value", "curve"])
            let time = try reader.requiredNumber("time", in: 0...1, "a number in [0, 1]")
            if let previous = keys.last, time < previous.time {
                throw .invalid(
                    "\(keyPath).time must not be before the previous key's (\(JSON.messageText(previous.time))); "
                        + "got \(JSON.messageText(time)).")
            }
            guard let valueJSON = reader.object["value"] else {
                throw .missing("\(keyPath).value", "a number, or {\"points\": n} for x and y")
            }
            let value = try Length(
                json: valueJSON, path: "\(keyPath).value", allowsPoints: property == .x || property == .y)
            var curve = TimingCurve.linear
            if let curveJSON = reader.object["curve"] {
                curve = try TimingCurve(json: curveJSON, path: "\(keyPath).curve")
                if case .spring = curve {
                    throw .invalid(
                        "\(keyPath).curve cannot be a spring; put the spring on the animator's curve instead.")
                }
            }
            keys.append(Keyframe(time: time, value: value, curve: curve))
        }
        return keys
    }

    var json: JSON {
        var trackObject = JSONObject()
        for property in AnimatableProperty.allCases {
            guard let keys = tracks[property] else { continue }
            trackObject[property.rawValue] = .array(
                keys.map { key in
                    ["time": .double(key.time), "value": key.value.json, "curve": key.curve.json]
                })
        }
        return ["z": .int(z), "anchor": [.double(anchorX), .double(anchorY)], "tracks": .object(trackObject)]
    }
}

extension Length {
    /// A number (container fraction, or the property's own unit), or `{"points": n}` where allowed.
    init(json: JSON, path: String, allowsPoints: Bool) throws(CoreError) {
        if let number = json.doubleValue, number.isFinite {
            self = .fraction(number)
            return
        }
        guard allowsPoints, case .object = json else {
            let expected =
                allowsPoints ? "a number or {\"points\": n}" : "a number ({\"points\": n} is only for x and y)"
            throw .wrongType(path, expected: expected, got: json)
        }
        let reader = try AnimationJSONReader(json, path: path)
        try reader.allowOnly(["points"])
        self = .points(try reader.requiredNumber("points", in: -100_000...100_000, "a number in [-100000, 100000]"))
    }

    var json: JSON {
        switch self {
        case .fraction(let value): .double(value)
        case .points(let points): ["points": .double(points)]
        }
    }
}
