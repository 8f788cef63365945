/// The parameters of the built-in styles. Each applies only to the styles named in its comment, and the
/// defaults reproduce UIKit's look.
public struct StyleOptions: Equatable, Sendable {
    /// `slide`: how far the covered view moves, as a fraction of the entering view's travel. UIKit's
    /// navigation push moves the old top view left by about 30% of the width.
    public var parallax: Double
    /// `zoom`: the scale the appearing view starts at (0 grows it from a point; the shrink pop).
    public var scale: Double
    /// `slide`, `cover`, `push`: added to the entering view's start position; `reveal`: added to the leaving
    /// view's end position. SimpleOver's move-over is `cover` from the right with `offsetY` 55 points.
    public var offsetX: Length
    public var offsetY: Length
    /// `slide`, `cover`, `push`, `reveal`, `iris`: the moving (or masked) view also fades, in as it enters
    /// or out as it leaves (the Logo Reveal seed's fade-in under its iris).
    public var fade: Bool

    public init(
        parallax: Double = 0.3, scale: Double = 0.8, offsetX: Length = .zero, offsetY: Length = .zero,
        fade: Bool = false
    ) {
        self.parallax = parallax
        self.scale = scale
        self.offsetX = offsetX
        self.offsetY = offsetY
        self.fade = fade
    }

    public static let standard = StyleOptions()
}
