/// One animator selection rule: which animator a transition gets, by operation and routes, like the seeds'
/// `navigationController(_:animationControllerFor:from:to:)`. `nil` fields match anything.
public struct AnimatorRule: Equatable, Sendable {
    public var operation: TransitionOperation?
    public var from: String?
    public var to: String?
    public var animator: Animator

    public init(operation: TransitionOperation? = nil, from: String? = nil, to: String? = nil, animator: Animator) {
        self.operation = operation
        self.from = from
        self.to = to
        self.animator = animator
    }

    public func matches(_ operation: TransitionOperation, from route: String, to destination: String) -> Bool {
        (self.operation == nil || self.operation == operation) && (from == nil || from == route)
            && (to == nil || to == destination)
    }
}
