/// The seed gallery: every animation of the classic custom-transition samples as a named animator
/// (docs/design.md, "Concepts"). Names are stable; clients use them as `{"preset": "fade.push"}`. Durations and curves
/// are ours where a sample's own are not recorded: 0.5 s ease in-out, the samples' common choice.
extension Animator {
    package static let presets: [(name: String, animator: Animator)] = [
        // SimpleOver: the new view moves over the old one from one width right and 55 points down; pop
        // plays it backwards (the top view moves back right and down, the one beneath stays in place).
        ("simpleOver.push", simpleOver),
        ("simpleOver.pop", simpleOver),
        // Fade push: the new view fades in above the old; fade pop: the top view fades out above the one
        // beneath.
        ("fade.push", Animator(style: .fade, duration: 0.5, curve: .easeInOut)),
        ("fade.pop", Animator(style: .fade, duration: 0.5, curve: .easeInOut)),
        // Slide from bottom: the new view rises from below over the old; pop: it slides back down.
        ("slideFromBottom.push", Animator(style: .cover, edge: .bottom, duration: 0.5, curve: .easeInOut)),
        ("slideFromBottom.pop", Animator(style: .cover, edge: .bottom, duration: 0.5, curve: .easeInOut)),
        // CATransition type push, subtype fromBottom: both views move up together by a full height.
        ("catransition.pushFromBottom", Animator(style: .push, edge: .bottom, duration: 0.5, curve: .easeInOut)),
        // Rotating push: the new view swings down into place about its top-left corner from −90° (above
        // the screen) on an underdamped spring (damping ratio 0.6), so it overshoots a little and settles.
        ("rotate.push", rotatePush),
        // Keyframed pop: the top view first dips 8° (a quarter of the time, ease out), then swings up
        // and away to −90° about its top-left corner (ease in), fading out over the last 30%.
        ("rotate.pop", rotatePop),
        // Logo Reveal: the new view is revealed by a growing iris mask while it fades in.
        (
            "logoReveal.push",
            Animator(style: .iris, duration: 0.8, curve: .easeInOut, options: StyleOptions(fade: true))
        ),
        // Shrink pop: the top view shrinks to nothing while fading out, above the view beneath.
        ("logoReveal.pop", Animator(style: .zoom, duration: 0.5, curve: .easeIn, options: StyleOptions(scale: 0))),
    ]

    package static var presetNames: [String] { presets.map(\.name) }

    package static func preset(named name: String) -> Animator? {
        presets.first { $0.name == name }?.animator
    }

    private static let simpleOver = Animator(
        style: .cover, edge: .right, duration: 0.5, curve: .easeInOut,
        options: StyleOptions(offsetY: .points(55)))

    private static let rotatePush = Animator(
        style: .keyframes(
            Keyframes(
                from: ViewKeyframes(z: 0),
                to: ViewKeyframes(
                    z: 1, anchorX: 0, anchorY: 0,
                    tracks: [
                        .rotation: [Keyframe(time: 0, value: -90), Keyframe(time: 1, value: 0)]
                    ]))),
        duration: 0.8, curve: .spring(.dampingRatio(ratio: 0.6, initialVelocity: 0)))

    private static let rotatePop = Animator(
        style: .keyframes(
            Keyframes(
                from: ViewKeyframes(
                    z: 1, anchorX: 0, anchorY: 0,
                    tracks: [
                        .rotation: [
                            Keyframe(time: 0, value: 0), Keyframe(time: 0.25, value: 8, curve: .easeOut),
                            Keyframe(time: 1, value: -90, curve: .easeIn),
                        ],
                        .alpha: [
                            Keyframe(time: 0, value: 1), Keyframe(time: 0.7, value: 1), Keyframe(time: 1, value: 0),
                        ],
                    ]),
                to: ViewKeyframes(z: 0))),
        duration: 0.6, curve: .linear)
}
