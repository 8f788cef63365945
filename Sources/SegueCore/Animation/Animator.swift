/// The `UIViewControllerAnimatedTransitioning` equivalent: how a transition looks and how long it runs.
public struct Animator: Equatable, Sendable {
    public var style: TransitionStyle
    /// The edge the style moves views from; `nil` means the style's own default for the operation.
    public var edge: Edge?
    /// Requested duration in seconds. Physical springs ignore it (see `effectiveDuration`).
    public var duration: Double
    public var curve: TimingCurve

    public init(style: TransitionStyle = .slide, edge: Edge? = nil, duration: Double = 0.35, curve: TimingCurve = .default) {
        self.style = style
        self.edge = edge
        self.duration = duration
        self.curve = curve
    }

    /// The duration the frame clock uses: a physical spring's settling time, otherwise `duration`.
    public var effectiveDuration: Double { curve.intrinsicDuration ?? duration }

    /// UIKit's default push/pop look.
    public static let `default` = Animator()
}

public enum Edge: String, Sendable, CaseIterable, Codable {
    case right, left, top, bottom
}

/// A container size in points, so styles given in points (SimpleOver's 55-point offset) can be turned
/// into the container fractions that ticks carry.
public struct ContainerSize: Equatable, Sendable {
    public var width: Double
    public var height: Double
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
}
