/// What a navigator does while a transition is in flight.
public enum BusyPolicy: String, Sendable, Equatable, CaseIterable {
    /// Other navigation commands fail with `busy` (the default).
    case reject
    /// Navigation commands are queued (bounded) and started in order when the transition ends.
    case queue
}

/// Decides whether an interactive transition that ends finishes or cancels (docs/protocol.md, "`begin`, `update`,
/// `finish`, `cancel`, `end`: interactive transitions").
///
/// Finish if `velocity ≥ flingVelocity` or `percent + velocityImpact × velocity > threshold`.
/// Defaults follow react-navigation and Flutter; the seeds' `percent > 0.5 || velocity > 0` is
/// `threshold: 0.5, velocityImpact: 0, flingVelocity: ε`.
public struct EndRule: Equatable, Sendable {
    public var threshold: Double
    public var velocityImpact: Double
    public var flingVelocity: Double

    public init(threshold: Double = 0.5, velocityImpact: Double = 0.3, flingVelocity: Double = 1.0) {
        self.threshold = threshold
        self.velocityImpact = velocityImpact
        self.flingVelocity = flingVelocity
    }

    public static let `default` = EndRule()

    public enum Decision: String, Sendable, Equatable { case finish, cancel }

    public func decide(percent: Double, velocity: Double) -> Decision {
        if velocity >= flingVelocity || percent + velocityImpact * velocity > threshold { return .finish }
        return .cancel
    }
}

/// Per-navigator settings, fixed at `create` and recorded in `navigator.created` so that a replay
/// needs nothing but the log.
public struct NavigatorConfig: Equatable, Sendable {
    public var busy: BusyPolicy = .reject
    public var queueLimit: Int = 16
    public var endRule: EndRule = .default
    /// The container in points; `nil` lets styles use their documented default size.
    public var container: ContainerSize?
    public var animators: AnimatorRules = AnimatorRules()
    /// Seconds without an `update` after which an interactive transition is cancelled (`timeout`).
    public var interactionTimeout: Double = 10
    /// The deepest stack a navigator accepts; past it, pushes fail with `too_large`.
    public var maxDepth: Int = 512
    /// Whether reversals keep the motion (docs/design.md, "Reversal and scrubbing"): a `cancel` of a
    /// clock-driven transition with no curve or animator, and under `reject` a plain `pop` or
    /// `dismiss` of the screen a push or present is bringing in, turn the transition back from
    /// where it is at the speed it moves. Off by default: then `cancel` runs UIKit's easeInOut from
    /// rest and that `pop` gets `busy`, as the protocol has always said.
    public var retarget: Bool = false

    public init() {}

    public static let queueLimitRange = 1...1024
    public static let maxDepthRange = 1...10_000
}
