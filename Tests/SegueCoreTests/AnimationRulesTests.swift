import Testing

@testable import SegueCore

/// Animator selection by (operation, from route, to route): first match wins, nil is a wildcard.
@Suite struct AnimationRulesTests {
    static let fade = Animator(style: .fade)
    static let cover = Animator(style: .cover)
    static let flip = Animator(style: .flip)
    static let rules = AnimatorRules(
        rules: [
            AnimatorRule(operation: .push, from: "List", to: "Detail", animator: fade),
            AnimatorRule(to: "Detail", animator: cover),
            AnimatorRule(operation: .pop, animator: flip),
        ], fallback: .default)

    @Test(arguments: [
        (TransitionOperation.push, "List", "Detail", fade),
        (.push, "Home", "Detail", cover),
        (.pop, "X", "Detail", cover),  // the second rule comes first
        (.pop, "Detail", "List", flip),
        (.push, "List", "Settings", Animator.default),
        (.present, "List", "Login", Animator.default),
    ])
    func firstMatchWins(operation: TransitionOperation, from: String, to: String, expected: Animator) {
        #expect(Self.rules.animator(for: operation, from: from, to: to) == expected)
    }

    @Test func standardRulesGiveModalsTheirUIKitLook() {
        #expect(AnimatorRules.standard.animator(for: .present, from: "A", to: "B") == .modal)
        #expect(AnimatorRules.standard.animator(for: .dismiss, from: "B", to: "A") == .modal)
        #expect(AnimatorRules.standard.animator(for: .push, from: "A", to: "B") == .default)
        #expect(AnimatorRules() == .standard)
        #expect(AnimatorRules.standard.json == [])
    }

    @Test func parsesRulesWithTheirOperationsStandardAsBase() throws {
        let json: JSON = [
            ["operation": "push", "from": "List", "to": "Detail", "animator": ["preset": "simpleOver.push"]],
            ["operation": "present", "animator": ["duration": 1]],
            ["to": "Settings", "animator": ["style": "fade"]],
        ]
        let rules = try AnimatorRules(json: json)
        #expect(rules.animator(for: .push, from: "List", to: "Detail") == Animator.preset(named: "simpleOver.push"))
        var slowModal = Animator.modal
        slowModal.duration = 1
        #expect(rules.animator(for: .present, from: "A", to: "B") == slowModal)
        #expect(rules.animator(for: .dismiss, from: "B", to: "A") == .modal)
        #expect(rules.animator(for: .pop, from: "A", to: "Settings") == Animator(style: .fade))
        #expect(rules.animator(for: .pop, from: "A", to: "B") == .default)
        #expect(try AnimatorRules(json: rules.json) == rules)
        #expect(try AnimatorRules(json: []) == .standard)
    }

    static let rejections: [AnimationJSONTests.Rejection] = [
        .init(
            ["operation": "push"], .badRequest, #"animators must be an array of rules; got an object with "operation"."#
        ),
        .init(
            [["animator": [:], "when": 1]], .badRequest,
            "animators[0] has unknown key \"when\"; allowed keys are operation, from, to, animator."),
        .init(
            [["operation": "shove", "animator": [:]]], .invalidArgument,
            #"animators[0].operation must be one of push, pop, present, dismiss; got "shove"."#),
        .init(
            [["operation": "pop", "animator": [:]], ["to": "A"]], .badRequest,
            "animators[1].animator is required: an animator object, {} for the standard one."),
        .init([["from": 3, "animator": [:]]], .badRequest, "animators[0].from must be a string; got 3."),
        .init([5], .badRequest, "animators[0] must be an object; got 5."),
        .init(
            [["animator": ["duration": -1]]], .invalidArgument,
            "animators[0].animator.duration must be in (0, 60] seconds; got -1."),
        .init(
            [["animator": ["curve": ["bezier": [0, 0, 3, 1]]]]], .invalidArgument,
            "animators[0].animator.curve.bezier[2] must be in [0, 1]; got 3."),
    ]

    @Test(arguments: rejections)
    func rejects(c: AnimationJSONTests.Rejection) {
        #expect(throws: c.error) { try AnimatorRules(json: c.json) }
    }

    @Test func boundsTheRuleCount() {
        let json = JSON.array(Array(repeating: ["animator": [:]], count: 257))
        #expect(throws: CoreError(.invalidArgument, "animators has 257 rules; at most 256 are allowed.")) {
            try AnimatorRules(json: json)
        }
    }
}

/// The animator a transition records says how long it runs: a spring that settles in its own time
/// (physical or response form) records its settling time as `duration`, from a command or a rule;
/// a damping-ratio spring and a timing curve keep the duration given.
@Suite struct RecordedAnimatorDurationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var rule: Animator?
        var command: JSON?
        var settles: Bool
        var testDescription: String { name }
    }

    static let physical = TimingCurve.spring(.physical(mass: 1, stiffness: 100, damping: 10, initialVelocity: 0))

    @Test(arguments: [
        Case(
            name: "physical spring, command",
            command: ["curve": ["spring": ["mass": 1, "stiffness": 100, "damping": 10]]], settles: true),
        Case(
            name: "response spring, command",
            command: ["curve": ["spring": ["response": 0.3, "dampingFraction": 0.8]]], settles: true),
        Case(name: "physical spring, rule", rule: Animator(duration: 0.5, curve: physical), settles: true),
        Case(
            name: "damping-ratio spring", command: ["duration": 0.6, "curve": ["spring": ["dampingRatio": 0.7]]],
            settles: false),
        Case(name: "timing curve", command: ["duration": 0.6, "curve": "easeIn"], settles: false),
    ])
    func theRecordedDurationIsTheOneRun(_ c: Case) throws {
        let config = Fixture.config { config in
            if let rule = c.rule {
                config.animators = AnimatorRules(rules: [AnimatorRule(animator: rule)], fallback: .default)
            }
        }
        let events = Fixture.log(
            [(.push(ScreenSpec(name: "Detail"), TransitionOptions(animator: c.command)), 10)], config: config)
        guard case .started(let started) = try #require(events.last?.kind) else {
            Issue.record("no transition.started: \(events)")
            return
        }
        let animator = started.animator
        if c.settles {
            let settling = try #require(animator.curve.intrinsicDuration)
            #expect(animator.duration == settling, "recorded \(animator.duration) s, runs \(settling) s")
        } else {
            #expect(animator.duration == 0.6)
        }
        #expect(animator.duration == animator.effectiveDuration)
        #expect(try Animator(json: animator.json, base: .default) == animator, "the log reads it back the same")
    }
}
