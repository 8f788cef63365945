/// The wire form of timing curves (docs/protocol.md, "`create`"): a name, `{"bezier": [x1, y1, x2, y2]}`, or
/// `{"spring": {...}}` in one of the three spring forms.
extension TimingCurve {
    /// Parses the curve at JSON path `path` (`animator.curve`, or the `completionCurve` argument).
    ///
    /// Limits, so that every accepted curve is well defined and cheap: Bezier x1 and x2 in [0, 1] (else
    /// x(t) is not a function of time); damping ratios in [0.01, 10] (below 0.01 a spring rings for
    /// thousands of cycles); velocities within ±1000 distances per second; a physical spring must settle
    /// within 60 s, the longest duration an animator may have.
    /// `springs: false` where only a timing shape goes (`completionCurve`): what a refusal lists
    /// leaves springs out, and a spring is refused as one.
    package init(json: JSON, path: String = "curve", springs: Bool = true) throws(CoreError) {
        let forms =
            springs ? "{\"bezier\": [x1, y1, x2, y2]} or {\"spring\": {...}}" : "or {\"bezier\": [x1, y1, x2, y2]}"
        switch json {
        case .string(let name):
            guard let curve = Self.namedCurves.first(where: { $0.name == name })?.curve else {
                let names = Self.namedCurves.map(\.name).joined(separator: ", ")
                throw .notAllowed(path, expected: "one of \(names), \(forms)", got: json)
            }
            self = curve
        case .object:
            let reader = try AnimationJSONReader(json, path: path)
            if let value = reader.object["bezier"] {
                try reader.allowOnly(["bezier"])
                self = try Self.bezier(json: value, path: "\(path).bezier")
            } else if let value = reader.object["spring"] {
                guard springs else {
                    throw .notAllowed(path, expected: "a curve name or a bezier, not a spring", got: json)
                }
                try reader.allowOnly(["spring"])
                self = .spring(try Self.spring(json: value, path: "\(path).spring"))
            } else {
                throw .wrongType(path, expected: "a curve name, \(forms)", got: json)
            }
        default:
            throw .wrongType(path, expected: "a curve name, \(forms)", got: json)
        }
    }

    private static func bezier(json: JSON, path: String) throws(CoreError) -> TimingCurve {
        // Four numbers are the type of a bezier, as two are of a point: another count is a shape error.
        guard let items = json.arrayValue, items.count == 4 else {
            throw .wrongType(path, expected: "an array of four numbers [x1, y1, x2, y2]", got: json)
        }
        var numbers: [Double] = []
        for (index, item) in items.enumerated() {
            let range: ClosedRange<Double> = index == 0 || index == 2 ? 0...1 : -10...10
            numbers.append(try item.number(at: "\(path)[\(index)]", in: range))
        }
        return .bezier(x1: numbers[0], y1: numbers[1], x2: numbers[2], y2: numbers[3])
    }

    private static func spring(json: JSON, path: String) throws(CoreError) -> Spring {
        let reader = try AnimationJSONReader(json, path: path)
        let velocityRange: ClosedRange<Double> = -1000...1000
        let spring: Spring
        if reader.has("dampingRatio") {
            try reader.allowOnly(["dampingRatio", "initialVelocity"])
            spring = .dampingRatio(
                ratio: try reader.requiredNumber("dampingRatio", in: 0.01...10, "a number in [0.01, 10]"),
                initialVelocity: try reader.number("initialVelocity", in: velocityRange) ?? 0)
        } else if reader.has("mass") || reader.has("stiffness") || reader.has("damping") {
            try reader.allowOnly(["mass", "stiffness", "damping", "initialVelocity"])
            let what = "a mass/stiffness/damping spring needs all three, each a number in (0, 1000000000]"
            let mass = try reader.requiredNumber("mass", in: 0...1e9, openBelow: true, what)
            let stiffness = try reader.requiredNumber("stiffness", in: 0...1e9, openBelow: true, what)
            let damping = try reader.requiredNumber("damping", in: 0...1e9, openBelow: true, what)
            let ratio = damping / (2 * (mass * stiffness).squareRoot())
            guard ratio >= 0.01, ratio <= 10 else {
                throw .invalid(
                    "\(path) has damping ratio damping/(2·√(mass·stiffness)) = "
                        + "\(JSON.messageText(ratio)); it must be in [0.01, 10]."
                )
            }
            spring = .physical(
                mass: mass, stiffness: stiffness, damping: damping,
                initialVelocity: try reader.number("initialVelocity", in: velocityRange) ?? 0)
        } else if reader.has("response") || reader.has("dampingFraction") {
            try reader.allowOnly(["response", "dampingFraction"])
            spring = .response(
                response: try reader.requiredNumber(
                    "response", in: 0...60, openBelow: true, "seconds in (0, 60], with dampingFraction"),
                dampingFraction: try reader.requiredNumber(
                    "dampingFraction", in: 0.01...10, "a number in [0.01, 10], with response"))
        } else {
            throw .malformed(
                "\(path) must give dampingRatio (and initialVelocity), mass, stiffness and damping (and "
                    + "initialVelocity), or response and dampingFraction; got \(json.messageText)."
            )
        }
        // A response so small that (2π/response)² overflows leaves no spring to run; refused, rather
        // than run as the standard animator's curve in its place.
        if case .response(let response, _) = spring, spring.intrinsicMotion == nil {
            throw .invalid(
                "\(path).response \(JSON.messageText(response)) is too small: its stiffness (2π/response)² is "
                    + "not a finite number.")
        }
        if let settling = spring.settlingDuration, !(settling <= 60) {
            throw .invalid(
                "\(path) settles after \(JSON.messageText((settling * 10).rounded() / 10)) s, more than "
                    + "the 60 s limit; raise its damping or stiffness."
            )
        }
        return spring
    }

    /// The wire form; `TimingCurve(json: curve.json) == curve`.
    package var json: JSON {
        switch self {
        case .bezier(let x1, let y1, let x2, let y2):
            return ["bezier": [.double(x1), .double(y1), .double(x2), .double(y2)]]
        case .spring(let spring):
            return ["spring": spring.json]
        default:
            return .string(Self.namedCurves.first { $0.curve == self }?.name ?? "default")
        }
    }
}

extension Spring {
    /// The spring's wire form, the value of `{"spring": ...}`.
    package var json: JSON {
        switch self {
        case .dampingRatio(let ratio, let initialVelocity):
            ["dampingRatio": .double(ratio), "initialVelocity": .double(initialVelocity)]
        case .physical(let mass, let stiffness, let damping, let initialVelocity):
            [
                "mass": .double(mass), "stiffness": .double(stiffness), "damping": .double(damping),
                "initialVelocity": .double(initialVelocity),
            ]
        case .response(let response, let dampingFraction):
            ["response": .double(response), "dampingFraction": .double(dampingFraction)]
        }
    }
}
