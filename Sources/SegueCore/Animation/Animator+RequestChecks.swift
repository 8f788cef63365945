/// Checks a request's animators must pass beyond parsing: route names in rules, keyframe values in
/// their ranges. They run on requests only (`RequestDecoder`), never where stored events are
/// decoded: a log written before a check existed must stay readable, so the parsers stay as
/// permissive as they always were.
extension AnimatorRules {
    /// The first problem of the rules a request gave at `path` (its `animators`), or nil.
    package func requestProblem(path: String = "animators") -> CoreError? {
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
    package func requestProblem(path: String = "animator") -> CoreError? {
        // An offset in container sizes is bounded as keyframe positions are (points are bounded by
        // the parser).
        for (axis, offset) in [("x", options.offsetX), ("y", options.offsetY)] {
            let range = AnimatableProperty.x.valueRange
            guard case .fraction(let value) = offset, !range.contains(value) else { continue }
            return .outOfRange("\(path).offset.\(axis)", range, got: value)
        }
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
    package var valueRange: ClosedRange<Double> {
        switch self {
        case .alpha, .mask: 0...1
        case .scale: 0...1000
        case .x, .y: -1000...1000
        case .rotation, .rotationY: -100_000...100_000
        }
    }
}

extension Animator {
    /// The checks an animator a request spells out must pass beyond parsing, on its JSON: the
    /// duration rule for settling springs (`settlingSpringProblem`), then the ranges of its offset and
    /// keyframes (`requestProblem`). The daemon's decoder and `segue` both call it, so they refuse the
    /// same.
    package static func requestProblem(json given: JSON, path: String = "animator") -> CoreError? {
        if let problem = settlingSpringProblem(json: given, path: path) { return problem }
        // Only an offset or keyframes a request spells out can be out of range (presets' are not).
        guard given["keyframes"] != nil || given["offset"] != nil, let animator = try? Animator(json: given, path: path)
        else { return nil }
        return animator.requestProblem(path: path)
    }

    /// A `duration` beside a spring that settles in its own time (mass, stiffness and damping, or
    /// response and dampingFraction): that spring runs until it settles whatever the duration says,
    /// as UIKit's `UISpringTimingParameters(mass:stiffness:damping:initialVelocity:)` ignores a
    /// property animator's duration. Silently ignoring the number a user typed is worse than refusing
    /// it; the `dampingRatio` form is the spring that runs for a given duration.
    package static func settlingSpringProblem(json given: JSON, path: String = "animator") -> CoreError? {
        guard given["duration"] != nil, let curve = given["curve"],
            let parsed = try? TimingCurve(json: curve, path: "\(path).curve"), let settling = parsed.intrinsicDuration
        else { return nil }
        return CoreError(
            .invalidArgument,
            "\(path).duration cannot be given with a spring that settles in its own time (mass, stiffness and "
                + "damping, or response and dampingFraction): this one settles after "
                + "\(JSON.messageText((settling * 100).rounded() / 100)) s. Drop the duration, or give the spring "
                + "as dampingRatio and initialVelocity, which runs for the duration given.")
    }
}
