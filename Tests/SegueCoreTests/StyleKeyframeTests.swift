import Testing

@testable import SegueCore

/// Keyframe tracks: values at keys, curved segments, holds, jumps, points and spring overshoot.
@Suite struct StyleKeyframeTests {
    static let keys = [
        Keyframe(time: 0, value: 0), Keyframe(time: 0.5, value: 10, curve: .easeIn),
        Keyframe(time: 0.5, value: 20), Keyframe(time: 0.8, value: 30, curve: .linear),
    ]

    /// Before 0 the first segment extrapolates (its first key is at 0); after the last key (at 0.8, not 1) the
    /// value holds; 0.5 has two keys, a jump from 10 to 20.
    @Test(arguments: [
        (-0.5, -10.0), (0.0, 0.0), (0.25, 10 * 0.315357), (0.5, 20.0), (0.65, 25.0), (0.8, 30.0), (0.9, 30.0),
        (1.0, 30.0), (1.5, 30.0),
    ])
    func trackValue(time: Double, expected: Double) {
        let value = ViewKeyframes.value(of: Self.keys, at: time, extent: 100)
        #expect(abs(value - expected) < 1e-5, "at \(time): \(value)")
    }

    @Test func singleKeyHolds() {
        let keys = [Keyframe(time: 0.3, value: 0.7)]
        for time in [-1.0, 0, 0.3, 0.9, 2] { #expect(ViewKeyframes.value(of: keys, at: time, extent: 1) == 0.7) }
    }

    /// Keys at 0 and 1 extrapolate along their end segments, so springs overshoot keyframed views too.
    @Test func overshootExtrapolatesEndSegments() {
        let keys = [Keyframe(time: 0, value: -90), Keyframe(time: 0.5, value: -30), Keyframe(time: 1, value: 0)]
        #expect(abs(ViewKeyframes.value(of: keys, at: 1.1, extent: 1) - 6) < 1e-12)
        #expect(abs(ViewKeyframes.value(of: keys, at: -0.1, extent: 1) - -102) < 1e-12)
    }

    @Test func pointsResolveAgainstTheAxis() {
        let frames = ViewKeyframes(
            z: 1,
            tracks: [
                .x: [Keyframe(time: 0, value: .points(100)), Keyframe(time: 1, value: .points(0))],
                .y: [Keyframe(time: 0, value: .points(-200)), Keyframe(time: 1, value: 0)],
            ])
        let view = frames.properties(at: 0, container: ContainerSize(width: 400, height: 800))
        #expect(view.x == 0.25)
        #expect(view.y == -0.25)
    }

    @Test func untrackedPropertiesStayInPlaceAndAnchorsAndZAreKept() {
        let keyframes = Keyframes(
            from: ViewKeyframes(
                z: 3, anchorX: 0, anchorY: 1,
                tracks: [.alpha: [Keyframe(time: 0, value: 1), Keyframe(time: 1, value: 0)]]),
            to: ViewKeyframes(z: 2))
        let views = Animator(style: .keyframes(keyframes)).views(
            for: .pop, progress: 0.25, fraction: 0.25, container: nil)
        #expect(views.from.alpha == 0.75)
        #expect(views.from.anchorX == 0 && views.from.anchorY == 1 && views.from.z == 3)
        #expect(
            views.to
                == {
                    var v = ViewProperties()
                    v.z = 2
                    return v
                }())
    }
}
