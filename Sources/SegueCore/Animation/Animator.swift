/// The `UIViewControllerAnimatedTransitioning` equivalent: how a transition looks and how long it runs.
public struct Animator: Equatable, Sendable {
    public var style: TransitionStyle
    /// The edge the style moves views from; `nil` means the style's own default for the operation
    /// (`right` for push and pop, `bottom` for present and dismiss).
    public var edge: Edge?
    /// Requested duration in seconds. Physical springs ignore it (see `effectiveDuration`).
    public var duration: Double
    public var curve: TimingCurve
    /// Parameters of the built-in styles (parallax, zoom scale, point offsets, fade).
    public var options: StyleOptions

    public init(
        style: TransitionStyle = .slide, edge: Edge? = nil, duration: Double = 0.35,
        curve: TimingCurve = .default, options: StyleOptions = .standard
    ) {
        self.style = style
        self.edge = edge
        self.duration = duration
        self.curve = curve
        self.options = options
    }

    /// The duration the frame clock uses: a physical spring's settling time, otherwise `duration`.
    public var effectiveDuration: Double { curve.intrinsicDuration ?? duration }

    /// UIKit's default push/pop look: the new view slides in from the right over the old one, which moves
    /// left by 30%, in 0.35 s.
    public static let `default` = Animator()

    /// UIKit's default modal look: the presented view covers from the bottom; dismissing slides it back
    /// down, revealing the view underneath. 0.5 s, ease in-out.
    public static let modal = Animator(style: .cover, edge: .bottom, duration: 0.5, curve: .easeInOut)

    /// The animator UIKit would use for `operation` when no rule says otherwise.
    public static func standard(for operation: TransitionOperation) -> Animator {
        switch operation {
        case .push, .pop: .default
        case .present, .dismiss: .modal
        }
    }

    /// The edge the styles use for `operation`: the explicit one, or the operation's default.
    public func resolvedEdge(for operation: TransitionOperation) -> Edge {
        if let edge { return edge }
        switch operation {
        case .push, .pop: return .right
        case .present, .dismiss: return .bottom
        }
    }
}
