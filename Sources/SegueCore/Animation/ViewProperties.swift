/// What a frontend needs to draw one view of a transition at one frame (docs/protocol.md, "Ticks").
///
/// Offsets are fractions of the container (0 = in place, 1 = one full width right / height down), so
/// a frontend that knows nothing about styles can render any transition from these alone.
package struct ViewProperties: Equatable, Sendable {
    package var x: Double = 0
    package var y: Double = 0
    package var alpha: Double = 1
    package var scale: Double = 1
    /// Degrees about `anchor`.
    package var rotation: Double = 0
    /// Degrees about the vertical axis, for flips.
    package var rotationY: Double = 0
    /// 0...1 reveal mask (iris); 1 = fully visible.
    package var mask: Double = 1
    /// Stacking order; higher draws on top.
    package var z: Int = 0
    /// Unit-square anchor for rotation and scale; (0.5, 0.5) = centre.
    package var anchorX: Double = 0.5
    package var anchorY: Double = 0.5

    package init() {}
}

package struct ViewPair: Equatable, Sendable {
    package var from: ViewProperties
    package var to: ViewProperties
    package init(from: ViewProperties, to: ViewProperties) {
        self.from = from
        self.to = to
    }
}
