/// A navigator's animator selection: the first matching rule wins, then `fallback`.
///
/// JSON (the `animators` argument of `create`):
///
///     [{"operation": "push", "from": "List", "to": "Detail", "animator": {"preset": "simpleOver.push"}},
///      {"to": "Settings", "animator": {"style": "fade"}}]
public struct AnimatorRules: Equatable, Sendable {
    public var rules: [AnimatorRule]
    public var fallback: Animator

    /// With no arguments, `standard`: UIKit's look for every operation. Rules given here are used as they
    /// are (append `standardRules` to keep UIKit's modal look after them).
    public init(rules: [AnimatorRule] = AnimatorRules.standardRules, fallback: Animator = .default) {
        self.rules = rules
        self.fallback = fallback
    }

    /// UIKit's behaviour with no custom animators: modal transitions cover from the bottom and dismiss by
    /// revealing downwards (`Animator.modal`); navigation pushes and pops slide (`Animator.default`).
    public static let standard = AnimatorRules(rules: standardRules, fallback: .default)

    public static let standardRules = [
        AnimatorRule(operation: .present, animator: .modal),
        AnimatorRule(operation: .dismiss, animator: .modal),
    ]

    public func animator(for operation: TransitionOperation, from route: String, to destination: String) -> Animator {
        rules.first { $0.matches(operation, from: route, to: destination) }?.animator ?? fallback
    }

    /// At most this many rules, so a navigator's rules stay a small, bounded part of its state.
    public static let maximumRuleCount = 256

    /// Parses the rules at `path`; the standard modal rules follow them (so modals keep UIKit's look unless
    /// a rule says otherwise), then `fallback`. A rule's animator starts from UIKit's standard animator for
    /// its operation (so `{"operation": "present", "animator": {"duration": 1}}` is still a cover from the
    /// bottom), or from `fallback` when it names no operation.
    public init(json: JSON, fallback: Animator = .default, path: String = "animators") throws(CoreError) {
        guard let items = json.arrayValue else { throw .wrongType(path, expected: "an array of rules", got: json) }
        guard items.count <= Self.maximumRuleCount else {
            throw .invalid("\(path) has \(items.count) rules; at most \(Self.maximumRuleCount) are allowed.")
        }
        var rules: [AnimatorRule] = []
        for (index, item) in items.enumerated() {
            let rulePath = "\(path)[\(index)]"
            let reader = try AnimationJSONReader(item, path: rulePath)
            try reader.allowOnly(["operation", "from", "to", "animator"])
            var operation: TransitionOperation?
            if let name = try reader.string("operation") {
                guard let value = TransitionOperation(rawValue: name) else {
                    throw .notAllowed(
                        "\(rulePath).operation", expected: "one of push, pop, present, dismiss", got: .string(name))
                }
                operation = value
            }
            guard let animatorJSON = reader.object["animator"] else {
                throw .missing("\(rulePath).animator", "an animator object, {} for the standard one")
            }
            let base = operation.map(Animator.standard(for:)) ?? fallback
            rules.append(
                AnimatorRule(
                    operation: operation, from: try reader.string("from"), to: try reader.string("to"),
                    animator: try Animator(json: animatorJSON, base: base, path: "\(rulePath).animator")))
        }
        self.init(rules: rules + Self.standardRules, fallback: fallback)
    }

    /// The rules in wire form, without the trailing standard modal rules that parsing adds back.
    public var json: JSON {
        var rules = rules
        if rules.count >= Self.standardRules.count, Array(rules.suffix(Self.standardRules.count)) == Self.standardRules
        {
            rules.removeLast(Self.standardRules.count)
        }
        return .array(
            rules.map { rule in
                var object = JSONObject()
                if let operation = rule.operation { object["operation"] = .string(operation.rawValue) }
                if let from = rule.from { object["from"] = .string(from) }
                if let to = rule.to { object["to"] = .string(to) }
                object["animator"] = rule.animator.json
                return .object(object)
            })
    }
}
