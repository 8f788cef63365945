/// What a frontend needs to draw one view of a transition at one frame (docs/protocol.md, "Ticks").
///
/// Offsets are fractions of the container (0 = in place, 1 = one full width right / height down), so
/// a frontend that knows nothing about styles can render any transition from these alone.
public struct ViewProperties: Equatable, Sendable {
    public var x: Double = 0
    public var y: Double = 0
    public var alpha: Double = 1
    public var scale: Double = 1
    /// Degrees about `anchor`.
    public var rotation: Double = 0
    /// Degrees about the vertical axis, for flips.
    public var rotationY: Double = 0
    /// 0...1 reveal mask (iris); 1 = fully visible.
    public var mask: Double = 1
    /// Stacking order; higher draws on top.
    public var z: Int = 0
    /// Unit-square anchor for rotation and scale; (0.5, 0.5) = centre.
    public var anchorX: Double = 0.5
    public var anchorY: Double = 0.5

    public init() {}
}

public struct ViewPair: Equatable, Sendable {
    public var from: ViewProperties
    public var to: ViewProperties
    public init(from: ViewProperties, to: ViewProperties) {
        self.from = from
        self.to = to
    }
}
