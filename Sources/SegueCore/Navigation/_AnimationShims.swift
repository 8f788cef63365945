// Temporary: replaced by the animation layer's real rules and JSON forms at merge.
public struct AnimatorRule: Equatable, Sendable {
    public var operation: TransitionOperation?
    public var from: String?
    public var to: String?
    public var animator: Animator
}
public struct AnimatorRules: Equatable, Sendable {
    public var rules: [AnimatorRule] = []
    public var fallback: Animator = .default
    public init() {}
    public func animator(for operation: TransitionOperation, from: String, to: String) -> Animator {
        for r in rules where (r.operation == nil || r.operation == operation) && (r.from == nil || r.from == from) && (r.to == nil || r.to == to) { return r.animator }
        return fallback
    }
    public init(json: JSON) throws(CoreError) { self.init() }
    public var json: JSON { .array([]) }
}
extension Animator {
    public init(json: JSON, base: Animator) throws(CoreError) {
        self = base
        if let d = json["duration"]?.doubleValue { duration = d }
    }
    public var json: JSON { .object(["style": "slide", "duration": .double(duration)]) }
}
extension TimingCurve {
    public init(json: JSON) throws(CoreError) {
        switch json.stringValue {
        case "linear": self = .linear
        case "easeInOut": self = .easeInOut
        default: throw CoreError(.invalidArgument, "bad curve")
        }
    }
    public var json: JSON { .string("\(self)") }
}
