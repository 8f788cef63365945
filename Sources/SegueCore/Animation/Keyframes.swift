/// Custom tracks for both views, the `UIView.animateKeyframes` equivalent used by `TransitionStyle.keyframes`.
///
/// The keyframe time is the animator's progress (its curve applied to elapsed time, as UIKit applies the
/// animation's curve to the whole keyframe timeline). Untracked properties stay in place.
public struct Keyframes: Equatable, Sendable {
    public var from: ViewKeyframes
    public var to: ViewKeyframes

    public init(from: ViewKeyframes = ViewKeyframes(z: 0), to: ViewKeyframes = ViewKeyframes(z: 1)) {
        self.from = from
        self.to = to
    }
}

/// The properties a keyframe track can animate.
public enum AnimatableProperty: String, Sendable, CaseIterable, Codable {
    case x, y, alpha, scale, rotation, rotationY, mask

    /// The value a view has when the property is not tracked: in place, opaque, unscaled.
    var restingValue: Double {
        switch self {
        case .x, .y, .rotation, .rotationY: 0
        case .alpha, .scale, .mask: 1
        }
    }
}

/// One key: at relative `time` (0...1) the property has `value`; `curve` shapes the segment that arrives
/// here from the previous key (UIKit's `addKeyframe(withRelativeStartTime:relativeDuration:)` sets the
/// value reached at the end of its span).
public struct Keyframe: Equatable, Sendable {
    public var time: Double
    public var value: Length
    public var curve: TimingCurve

    public init(time: Double, value: Length, curve: TimingCurve = .linear) {
        self.time = time
        self.value = value
        self.curve = curve
    }

    public init(time: Double, value: Double, curve: TimingCurve = .linear) {
        self.init(time: time, value: .fraction(value), curve: curve)
    }
}

/// One view's keyframes: its stacking order, its anchor, and a track per animated property.
public struct ViewKeyframes: Equatable, Sendable {
    public var z: Int
    public var anchorX: Double
    public var anchorY: Double
    /// Keys in non-decreasing time order; two keys at the same time make a jump.
    public var tracks: [AnimatableProperty: [Keyframe]]

    public init(z: Int, anchorX: Double = 0.5, anchorY: Double = 0.5, tracks: [AnimatableProperty: [Keyframe]] = [:]) {
        self.z = z
        self.anchorX = anchorX
        self.anchorY = anchorY
        self.tracks = tracks
    }

    /// The view at keyframe time `time`.
    func properties(at time: Double, container: ContainerSize) -> ViewProperties {
        var view = ViewProperties()
        view.z = z
        view.anchorX = anchorX
        view.anchorY = anchorY
        for property in AnimatableProperty.allCases {
            guard let keys = tracks[property], !keys.isEmpty else { continue }
            let extent = property == .x ? container.width : container.height
            let value = Self.value(of: keys, at: time, extent: extent)
            switch property {
            case .x: view.x = value
            case .y: view.y = value
            case .alpha: view.alpha = value
            case .scale: view.scale = value
            case .rotation: view.rotation = value
            case .rotationY: view.rotationY = value
            case .mask: view.mask = value
            }
        }
        return view
    }

    /// A track's value at `time`. Before the first key and after the last the value holds, except that a
    /// spring's overshoot (time beyond 0 or 1 when the track has keys there) extrapolates the first or
    /// last segment along its chord, so a keyframed view overshoots with its curve.
    static func value(of keys: [Keyframe], at time: Double, extent: Double) -> Double {
        func resolved(_ index: Int) -> Double { keys[index].value.resolved(along: extent) }
        let last = keys.count - 1
        if time >= keys[last].time {
            if time > 1, keys[last].time == 1, last > 0, keys[last - 1].time < 1 {
                let span = keys[last].time - keys[last - 1].time
                return resolved(last) + (resolved(last) - resolved(last - 1)) * (time - 1) / span
            }
            return resolved(last)
        }
        if time < keys[0].time || !(time >= keys[0].time) {
            if time < 0, keys[0].time == 0, last > 0, keys[1].time > 0 {
                let span = keys[1].time - keys[0].time
                return resolved(0) + (resolved(1) - resolved(0)) * time / span
            }
            return resolved(0)
        }
        // The segment keys[i] → keys[i + 1] with keys[i].time <= time < keys[i + 1].time.
        var index = 0
        while index + 1 < last && keys[index + 1].time <= time { index += 1 }
        let start = keys[index]
        let end = keys[index + 1]
        let local = (time - start.time) / (end.time - start.time)
        let weight = end.curve.progress(atFraction: local, duration: end.curve.intrinsicDuration ?? 1)
        return (1 - weight) * resolved(index) + weight * resolved(index + 1)
    }
}
