/// Checks a request's animators must pass beyond parsing: route names in rules, keyframe values in
/// their ranges. They run on requests only (`RequestDecoder`), never where stored events are
/// decoded: a log written before a check existed must stay readable, so the parsers stay as
/// permissive as they always were.
extension AnimatorRules {
    /// The first problem of the rules a request gave at `path` (its `animators`), or nil.
    public func requestProblem(path: String = "animators") -> CoreError? {
        for (index, rule) in rules.enumerated() {
            let rulePath = "\(path)[\(index)]"
            for (key, route) in [("from", rule.from), ("to", rule.to)] {
                // A name no screen can have would make the rule silently never match.
                guard let route, !ScreenSpec.isValidName(route) else { continue }
                return .notAllowed(
                    "\(rulePath).\(key)", expected: "a route name matching [A-Za-z0-9._-]{1,64}", got: .string(route))
            }
            if let problem = rule.animator.requestProblem(path: "\(rulePath).animator") { return problem }
        }
        return nil
    }
}

extension Animator {
    /// The first problem of an animator a request gave at `path`, or nil.
    public func requestProblem(path: String = "animator") -> CoreError? {
        guard case .keyframes(let keyframes) = style else { return nil }
        for (side, view) in [("from", keyframes.from), ("to", keyframes.to)] {
            let viewPath = "\(path).keyframes.\(side)"
            for (index, value) in [view.anchorX, view.anchorY].enumerated() where !(0...1).contains(value) {
                return .outOfRange("\(viewPath).anchor[\(index)]", 0...1, got: value)
            }
            for property in AnimatableProperty.allCases {
                for (index, key) in (view.tracks[property] ?? []).enumerated() {
                    guard case .fraction(let value) = key.value, !property.valueRange.contains(value) else { continue }
                    return .outOfRange(
                        "\(viewPath).tracks.\(property.rawValue)[\(index)].value", property.valueRange, got: value)
                }
            }
        }
        return nil
    }
}

extension AnimatableProperty {
    /// What a keyframe in a request may set: opacity and the mask's reveal are fractions; a scale is
    /// at most a thousandfold; positions (in container sizes) and turns are bounded only so that a
    /// typo such as 1e300 is refused rather than animated.
    public var valueRange: ClosedRange<Double> {
        switch self {
        case .alpha, .mask: 0...1
        case .scale: 0...1000
        case .x, .y: -1000...1000
        case .rotation, .rotationY: -100_000...100_000
        }
    }
}
