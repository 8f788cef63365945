import Testing

@testable import SegueCore

/// The animator and curve wire forms: parsing, exact rejection messages, and round trips.
@Suite struct AnimationJSONTests {
    struct Parse: Sendable {
        var json: JSON
        var curve: TimingCurve
        init(_ json: JSON, _ curve: TimingCurve) {
            self.json = json
            self.curve = curve
        }
    }

    /// A JSON input and the exact error its rejection carries: `bad_request` for a wrong type, a missing
    /// or unknown key, `invalid_argument` for a value out of range or not allowed.
    struct Rejection: Sendable, CustomTestStringConvertible {
        var json: JSON
        var code: ErrorCode
        var message: String
        init(_ json: JSON, _ code: ErrorCode, _ message: String) {
            self.json = json
            self.code = code
            self.message = message
        }
        var error: CoreError { CoreError(code, message) }
        var testDescription: String { "\(code.rawValue): \(message)" }
    }

    static let curveTable: [Parse] = [
        Parse("linear", .linear), Parse("easeIn", .easeIn), Parse("easeOut", .easeOut),
        Parse("easeInOut", .easeInOut), Parse("default", .default),
        Parse(["bezier": [0.25, 0.1, 0.25, 1]], .bezier(x1: 0.25, y1: 0.1, x2: 0.25, y2: 1)),
        Parse(["bezier": [0, -0.5, 1, 1.5]], .bezier(x1: 0, y1: -0.5, x2: 1, y2: 1.5)),
        Parse(
            ["spring": ["dampingRatio": 0.6, "initialVelocity": 2]],
            .spring(.dampingRatio(ratio: 0.6, initialVelocity: 2))),
        Parse(["spring": ["dampingRatio": 1]], .spring(.dampingRatio(ratio: 1, initialVelocity: 0))),
        Parse(
            ["spring": ["mass": 3, "stiffness": 1000, "damping": 500]],
            .spring(.physical(mass: 3, stiffness: 1000, damping: 500, initialVelocity: 0))),
        Parse(
            ["spring": ["mass": 1, "stiffness": 100, "damping": 10, "initialVelocity": -1]],
            .spring(.physical(mass: 1, stiffness: 100, damping: 10, initialVelocity: -1))),
        Parse(
            ["spring": ["response": 0.55, "dampingFraction": 0.825]],
            .spring(.response(response: 0.55, dampingFraction: 0.825))),
    ]

    @Test(arguments: curveTable)
    func curveParses(c: Parse) throws {
        let curve = try TimingCurve(json: c.json, path: "animator.curve")
        #expect(curve == c.curve)
        #expect(try TimingCurve(json: curve.json) == curve)
    }

    static let curveRejections: [Rejection] = [
        Rejection(
            JSON.string("bouncy"), .invalidArgument,
            #"animator.curve must be one of linear, easeIn, easeOut, easeInOut, default, {"bezier": [x1, y1, x2, y2]} or {"spring": {...}}; got "bouncy"."#
        ),
        Rejection(
            ["bezier": [1.5, 0, 0.5, 1]], .invalidArgument, "animator.curve.bezier[0] must be in [0, 1]; got 1.5."),
        Rejection(
            ["bezier": [0.5, 0, -0.1, 1]], .invalidArgument, "animator.curve.bezier[2] must be in [0, 1]; got -0.1."),
        Rejection(
            ["bezier": [0.5, 0, 1]], .badRequest,
            "animator.curve.bezier must be an array of four numbers [x1, y1, x2, y2]; got an array of 3 values."),
        Rejection(
            ["bezier": [0.5, "0", 0.5, 1]], .badRequest, #"animator.curve.bezier[1] must be a number; got "0"."#),
        Rejection(
            ["bezier": [0.5, 0, 0.5, 1], "spring": [:]], .badRequest,
            "animator.curve has unknown key \"spring\"; allowed keys are bezier."),
        Rejection(
            ["ease": 1], .badRequest,
            #"animator.curve must be a curve name, {"bezier": [x1, y1, x2, y2]} or {"spring": {...}}; got an object with "ease"."#
        ),
        Rejection(
            3, .badRequest,
            #"animator.curve must be a curve name, {"bezier": [x1, y1, x2, y2]} or {"spring": {...}}; got 3."#),
        Rejection(
            ["spring": ["dampingRatio": 0]], .invalidArgument,
            "animator.curve.spring.dampingRatio must be in [0.01, 10]; got 0."),
        Rejection(
            ["spring": ["dampingRatio": 0.5, "mass": 1]], .badRequest,
            "animator.curve.spring has unknown key \"mass\"; allowed keys are dampingRatio, initialVelocity."),
        Rejection(
            ["spring": ["mass": 1, "stiffness": 100]], .badRequest,
            "animator.curve.spring.damping is required: a mass/stiffness/damping spring needs all three, each a number in (0, 1000000000]."
        ),
        Rejection(
            ["spring": ["mass": 1, "stiffness": -100, "damping": 10]], .invalidArgument,
            "animator.curve.spring.stiffness must be in (0, 1000000000]; got -100."),
        Rejection(
            ["spring": ["mass": 1, "stiffness": 100, "damping": 0.1]], .invalidArgument,
            "animator.curve.spring has damping ratio damping/(2·√(mass·stiffness)) = 0.005; it must be in [0.01, 10]."),
        Rejection(
            ["spring": ["mass": 100, "stiffness": 1, "damping": 2]], .invalidArgument,
            "animator.curve.spring settles after 691.3 s, more than the 60 s limit; raise its damping or stiffness."),
        Rejection(
            ["spring": ["response": 0.5]], .badRequest,
            "animator.curve.spring.dampingFraction is required: a number in [0.01, 10], with response."),
        Rejection(
            ["spring": ["stiff": 1]], .badRequest,
            #"animator.curve.spring must give dampingRatio (and initialVelocity), mass, stiffness and damping (and initialVelocity), or response and dampingFraction; got an object with "stiff"."#
        ),
    ]

    @Test(arguments: curveRejections)
    func curveRejects(c: Rejection) {
        #expect(throws: c.error) {
            try TimingCurve(json: c.json, path: "animator.curve")
        }
    }

    @Test func animatorParsesEveryKey() throws {
        let json: JSON = [
            "style": "cover", "edge": "top", "duration": 0.6, "curve": ["bezier": [0.2, 0, 0.2, 1]],
            "parallax": 0.2, "scale": 0.5, "offset": ["x": 0.1, "y": ["points": 55]], "fade": true,
        ]
        let animator = try Animator(json: json)
        #expect(
            animator
                == Animator(
                    style: .cover, edge: .top, duration: 0.6, curve: .bezier(x1: 0.2, y1: 0, x2: 0.2, y2: 1),
                    options: StyleOptions(
                        parallax: 0.2, scale: 0.5, offsetX: .fraction(0.1), offsetY: .points(55), fade: true)))
    }

    @Test func missingKeysComeFromTheBaseAndPresetsReplaceIt() throws {
        let base = Animator(style: .fade, edge: .left, duration: 2, curve: .linear)
        #expect(
            try Animator(json: ["duration": 1], base: base)
                == Animator(style: .fade, edge: .left, duration: 1, curve: .linear))
        #expect(try Animator(json: [:], base: base) == base)
        var expected = try #require(Animator.preset(named: "simpleOver.push"))
        expected.duration = 1.5
        #expect(try Animator(json: ["preset": "simpleOver.push", "duration": 1.5], base: base) == expected)
        #expect(try Animator(json: ["edge": nil], base: base).edge == nil)
    }

    @Test func keyframesParse() throws {
        let json: JSON = [
            "style": "keyframes",
            "keyframes": [
                "from": [
                    "z": 2, "anchor": [0, 0],
                    "tracks": [
                        "rotation": [
                            ["time": 0, "value": 0],
                            ["time": 1, "value": 90, "curve": "easeIn"],
                        ]
                    ],
                ],
                "to": ["tracks": ["x": [["time": 0, "value": ["points": -100]], ["time": 1, "value": 0]]]],
            ],
        ]
        let animator = try Animator(json: json)
        let expected = Keyframes(
            from: ViewKeyframes(
                z: 2, anchorX: 0, anchorY: 0,
                tracks: [
                    .rotation: [Keyframe(time: 0, value: 0), Keyframe(time: 1, value: 90, curve: .easeIn)]
                ]),
            to: ViewKeyframes(
                z: 1, tracks: [.x: [Keyframe(time: 0, value: .points(-100)), Keyframe(time: 1, value: 0)]]))
        #expect(animator.style == .keyframes(expected))
        #expect(try Animator(json: ["keyframes": ["to": [:]]]).style == .keyframes(Keyframes()))
        #expect(
            try Animator(json: ["preset": "rotate.pop", "style": "keyframes"]) == Animator.preset(named: "rotate.pop"))
    }

    static let animatorRejections: [Rejection] = [
        Rejection(
            ["colour": "red"], .badRequest,
            "animator has unknown key \"colour\"; allowed keys are preset, style, edge, duration, curve, parallax, scale, offset, fade, keyframes."
        ),
        Rejection(
            ["style": "spin"], .invalidArgument,
            #"animator.style must be one of slide, cover, reveal, push, fade, crossfade, flip, zoom, iris, none, keyframes; got "spin"."#
        ),
        Rejection(["style": 3], .badRequest, "animator.style must be a string; got 3."),
        Rejection(
            ["edge": "north"], .invalidArgument,
            #"animator.edge must be one of right, left, top, bottom or null; got "north"."#),
        Rejection(
            ["edge": 1], .badRequest, "animator.edge must be an edge name (right, left, top, bottom) or null; got 1."),
        Rejection(["duration": 0], .invalidArgument, "animator.duration must be in (0, 60] seconds; got 0."),
        Rejection(["duration": 61], .invalidArgument, "animator.duration must be in (0, 60] seconds; got 61."),
        Rejection(["duration": "1"], .badRequest, #"animator.duration must be a number; got "1"."#),
        Rejection(
            ["curve": ["bezier": [2, 0, 0, 1]]], .invalidArgument, "animator.curve.bezier[0] must be in [0, 1]; got 2."),
        Rejection(
            ["preset": "wobble"], .invalidArgument,
            #"animator.preset must be one of simpleOver.push, simpleOver.pop, fade.push, fade.pop, slideFromBottom.push, slideFromBottom.pop, catransition.pushFromBottom, rotate.push, rotate.pop, logoReveal.push, logoReveal.pop; got "wobble"."#
        ),
        Rejection(["parallax": 2], .invalidArgument, "animator.parallax must be in [0, 1]; got 2."),
        Rejection(["fade": 1], .badRequest, "animator.fade must be true or false; got 1."),
        Rejection(["offset": ["z": 1]], .badRequest, "animator.offset has unknown key \"z\"; allowed keys are x, y."),
        Rejection(
            ["offset": ["y": ["pt": 55]]], .badRequest,
            "animator.offset.y has unknown key \"pt\"; allowed keys are points."),
        Rejection(
            ["offset": ["x": "55pt"]], .badRequest,
            #"animator.offset.x must be a number or {"points": n}; got "55pt"."#),
        Rejection(
            ["style": "keyframes"], .badRequest,
            #"animator.keyframes is required: style "keyframes" needs its tracks."#),
        Rejection(
            ["style": "fade", "keyframes": [:]], .badRequest,
            "animator.keyframes is only allowed with style \"keyframes\", not \"fade\"."),
        Rejection(
            ["keyframes": ["to": ["tracks": ["alpha": [["time": 0.5, "value": 1], ["time": 0.2, "value": 0]]]]]],
            .invalidArgument,
            "animator.keyframes.to.tracks.alpha[1].time must not be before the previous key's (0.5); got 0.2."),
        Rejection(
            ["keyframes": ["to": ["tracks": ["alpha": [["time": 0, "value": ["points": 1]]]]]]], .badRequest,
            #"animator.keyframes.to.tracks.alpha[0].value must be a number ({"points": n} is only for x and y); got an object with "points"."#
        ),
        Rejection(
            ["keyframes": ["to": ["tracks": ["spin": []]]]], .badRequest,
            "animator.keyframes.to.tracks has unknown key \"spin\"; allowed keys are x, y, alpha, scale, rotation, rotationY, mask."
        ),
        Rejection(
            ["keyframes": ["to": ["tracks": ["x": []]]]], .invalidArgument,
            "animator.keyframes.to.tracks.x must be an array of 1 to 64 keyframes; got an empty array."),
        Rejection(
            ["keyframes": ["to": ["tracks": ["x": 1]]]], .badRequest,
            "animator.keyframes.to.tracks.x must be an array of 1 to 64 keyframes; got 1."),
        Rejection(
            ["keyframes": ["from": ["tracks": ["x": [["time": 1.5, "value": 0]]]]]], .invalidArgument,
            "animator.keyframes.from.tracks.x[0].time must be in [0, 1]; got 1.5."),
        Rejection(
            [
                "keyframes": [
                    "from": ["tracks": ["x": [["time": 1, "value": 0, "curve": ["spring": ["dampingRatio": 0.5]]]]]]
                ]
            ], .invalidArgument,
            "animator.keyframes.from.tracks.x[0].curve cannot be a spring; put the spring on the animator's curve instead."
        ),
        Rejection(
            ["keyframes": ["from": ["z": 0.5]]], .badRequest, "animator.keyframes.from.z must be an integer; got 0.5."),
        Rejection(
            ["keyframes": ["from": ["z": 1001]]], .invalidArgument,
            "animator.keyframes.from.z must be in [-1000, 1000]; got 1001."),
        Rejection("fade", .badRequest, #"animator must be an object; got "fade"."#),
    ]

    @Test(arguments: animatorRejections)
    func animatorRejects(c: Rejection) {
        #expect(throws: c.error) { try Animator(json: c.json) }
    }

    static let roundTripAnimators: [Animator] =
        Animator.presets.map(\.animator) + [
            .default, .modal, Animator(style: .flip, edge: .left, duration: 0.7, curve: .easeOut),
            Animator(
                style: .zoom, curve: .spring(.physical(mass: 1, stiffness: 100, damping: 10, initialVelocity: 0.5))),
            Animator(style: .none, curve: .spring(.response(response: 0.4, dampingFraction: 0.9))),
            Animator(style: .slide, options: StyleOptions(parallax: 0, offsetX: .points(-12.5))),
        ]

    @Test(arguments: roundTripAnimators)
    func animatorRoundTrips(animator: Animator) throws {
        #expect(try Animator(json: animator.json) == animator)
        // Self-contained: the base does not matter.
        let base = Animator(
            style: .crossfade, edge: .top, duration: 9, curve: .linear, options: StyleOptions(fade: true))
        #expect(try Animator(json: animator.json, base: base) == animator)
    }

    @Test func jsonShape() {
        #expect(
            Animator.default.json == [
                "style": "slide", "edge": nil, "duration": 0.35, "curve": "default", "parallax": 0.3, "scale": 0.8,
                "offset": ["x": 0, "y": 0], "fade": false,
            ])
    }

    @Test func effectiveDurationIsTheSettlingTimeOfPhysicalSprings() throws {
        let physical = try Animator(json: [
            "duration": 0.3, "curve": ["spring": ["mass": 1, "stiffness": 100, "damping": 10]],
        ])
        #expect(abs(physical.effectiveDuration - 1.410319263041605) < 1e-9)
        let ratio = try Animator(json: ["duration": 0.3, "curve": ["spring": ["dampingRatio": 0.5]]])
        #expect(ratio.effectiveDuration == 0.3)
    }
}
