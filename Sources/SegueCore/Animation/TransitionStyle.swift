/// What the from and to views do during a transition (docs/design.md, "Concepts").
///
/// Every built-in style is described for the forward operations (push, present) at progress q; the reverse
/// operations (pop, dismiss) play the same style backwards, with q = 1 − progress and from and to swapped,
/// so that a pop undoes its push exactly (UIKit's pop: the top view leaves to the right, the view beneath
/// comes back from 30% left). `d` is the edge's direction (right = (1, 0), bottom = (0, 1)), `o` the
/// options' offset.
public enum TransitionStyle: Equatable, Sendable {
    /// UIKit's navigation push: to moves d + o → 0 above from; from moves 0 → −parallax·d.
    case slide
    /// to moves d + o → 0 above from, which stays (modal presentation; SimpleOver's move-over).
    case cover
    /// from moves 0 → −d + o above to, which stays underneath (CATransition reveal).
    case reveal
    /// Both move together by a full container: to d + o → 0, from 0 → −d (CATransition push).
    case push
    /// to fades in (alpha 0 → 1) above from.
    case fade
    /// from fades out (1 → 0) while to fades in (0 → 1) above it.
    case crossfade
    /// Both turn about the vertical axis: from rotationY 0 → 180·s, to −180·s → 0 (s = −1 for the left and
    /// top edges, else 1); from is visible for q < 0.5, to from q ≥ 0.5 (their backs are hidden).
    case flip
    /// to grows from `options.scale` to 1 while fading in, above from.
    case zoom
    /// to's reveal mask grows 0 → 1 above from (the Logo Reveal seed).
    case iris
    /// No animation: to is drawn above from only from q ≥ 1 (alpha 0 before).
    case none
    /// Custom tracks per view and property, like `UIView.animateKeyframes`. Not reversed for pop and
    /// dismiss: the tracks say literally what from and to do, with progress as keyframe time.
    case keyframes(Keyframes)

    /// The built-in styles with their wire names (`keyframes` is written as its own object).
    public static let named: [(name: String, style: TransitionStyle)] = [
        ("slide", .slide), ("cover", .cover), ("reveal", .reveal), ("push", .push), ("fade", .fade),
        ("crossfade", .crossfade), ("flip", .flip), ("zoom", .zoom), ("iris", .iris), ("none", .none),
    ]

    /// The wire name: one of `named`, or `keyframes`.
    public var name: String {
        if case .keyframes = self { return "keyframes" }
        return Self.named.first { $0.style == self }?.name ?? "slide"
    }
}
