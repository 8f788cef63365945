/// What the from and to views do during a transition (DESIGN.md §2).
public enum TransitionStyle: Equatable, Sendable {
    case slide, cover, reveal, push, fade, crossfade, flip, zoom, iris, none
    // placeholder: keyframes and presets are added by the styles implementation
}

extension Animator {
    /// The from/to view properties for `operation` at `progress` (the curve's output) and `fraction`
    /// (elapsed time). Pure; `container` converts point offsets to fractions.
    public func views(for operation: TransitionOperation, progress: Double, fraction: Double, container: ContainerSize?) -> ViewPair {
        ViewPair(from: ViewProperties(), to: ViewProperties())  // placeholder
    }
}
