extension Animator {
    /// The from/to view properties for `operation` at `progress` (the curve's output) and `fraction`
    /// (elapsed time). Pure; `container` converts point offsets to fractions (an iPhone's 390 × 844 points
    /// when `nil`).
    ///
    /// Invariants, for every built-in style and edge: at progress 0 the from view is exactly in place
    /// (x = y = 0, alpha = scale = mask = 1, no rotation) and at progress 1 the to view is. Alpha and mask
    /// are clamped to [0, 1] when a spring overshoots; offsets, scale and angles are not.
    package func views(
        for operation: TransitionOperation, progress: Double, fraction: Double,
        container: ContainerSize?
    ) -> ViewPair {
        let container = container ?? .defaultPhone
        if case .keyframes(let keyframes) = style {
            return ViewPair(
                from: keyframes.from.properties(at: progress, container: container).normalised(),
                to: keyframes.to.properties(at: progress, container: container).normalised())
        }
        let edge = resolvedEdge(for: operation)
        switch operation {
        case .push, .present:
            let forward = forwardViews(at: progress, edge: edge, container: container)
            return ViewPair(from: forward.leaving.normalised(), to: forward.entering.normalised())
        case .pop, .dismiss:
            let forward = forwardViews(at: 1 - progress, edge: edge, container: container)
            return ViewPair(from: forward.entering.normalised(), to: forward.leaving.normalised())
        }
    }

    /// The style played forward at `q`: `leaving` is the view that was on screen at q = 0, `entering` the
    /// one on screen at q = 1. See `TransitionStyle` for each style's definition.
    private func forwardViews(at q: Double, edge: Edge, container: ContainerSize)
        -> (leaving: ViewProperties, entering: ViewProperties)
    {
        var leaving = ViewProperties()
        var entering = ViewProperties()
        let d = edge.direction
        let offsetX = options.offsetX.resolved(along: container.width)
        let offsetY = options.offsetY.resolved(along: container.height)
        /// (1 − w)·a + w·b: exactly a at w = 0 and exactly b at w = 1.
        func mix(_ a: Double, _ b: Double, _ w: Double) -> Double { (1 - w) * a + w * b }

        leaving.z = 0
        entering.z = 1
        switch style {
        case .slide, .cover, .push:
            entering.x = mix(d.x + offsetX, 0, q)
            entering.y = mix(d.y + offsetY, 0, q)
            if options.fade { entering.alpha = q }
            if style == .slide {
                leaving.x = mix(0, -options.parallax * d.x, q)
                leaving.y = mix(0, -options.parallax * d.y, q)
            } else if style == .push {
                leaving.x = mix(0, -d.x, q)
                leaving.y = mix(0, -d.y, q)
            }
        case .reveal:
            leaving.x = mix(0, -d.x + offsetX, q)
            leaving.y = mix(0, -d.y + offsetY, q)
            if options.fade { leaving.alpha = 1 - q }
            leaving.z = 1
            entering.z = 0
        case .fade:
            entering.alpha = q
        case .crossfade:
            leaving.alpha = 1 - q
            entering.alpha = q
        case .flip:
            let sign: Double = edge == .left || edge == .top ? -1 : 1
            leaving.rotationY = sign * 180 * q
            entering.rotationY = sign * (180 * q - 180)
            leaving.alpha = q < 0.5 ? 1 : 0
            entering.alpha = q < 0.5 ? 0 : 1
        case .zoom:
            entering.scale = mix(options.scale, 1, q)
            entering.alpha = q
        case .iris:
            entering.mask = q
            if options.fade { entering.alpha = q }
        case .none:
            entering.alpha = q >= 1 ? 1 : 0
        case .keyframes:
            break  // handled by `views(for:progress:fraction:container:)`
        }
        return (leaving, entering)
    }
}

extension ViewProperties {
    /// Alpha and mask clamped to [0, 1]; negative zeros made positive, so that ticks encode "0", not "-0".
    func normalised() -> ViewProperties {
        var view = self
        view.x += 0
        view.y += 0
        view.alpha = min(max(alpha, 0), 1) + 0
        view.mask = min(max(mask, 0), 1) + 0
        view.scale += 0
        view.rotation += 0
        view.rotationY += 0
        return view
    }
}
