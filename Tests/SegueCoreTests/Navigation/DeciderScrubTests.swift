import Testing

@testable import SegueCore

/// Reversal, `pause`, `seek` and `resume` as decisions: given events, when a command, then the whole
/// event list and the state it leaves.
@Suite struct DeciderScrubTests {
    typealias F = Fixture
    let home = F.screen(1, "Home")
    let detail = F.screen(2, "Detail")
    /// Frames of the default 0.35 s animator at 60 Hz, as the clock computes them.
    let run = 0.35 * 60

    /// A navigator created with `retarget`: reversals keep the motion.
    static let retargeting = F.config { $0.retarget = true }

    /// Home, then an animated push of Detail at frame 10 (linear, so the fraction is the progress).
    static func pushing(_ config: NavigatorConfig = retargeting, animator: JSON = ["curve": "linear"])
        -> NavigatorState
    {
        F.given(
            F.log(
                [(.push(ScreenSpec(name: "Detail"), TransitionOptions(animator: animator)), 10)], config: config))
    }

    static func decided(_ s: NavigatorState, _ c: NavigationCommand, at frame: Int64, owner: String? = nil)
        -> NavigatorState
    {
        let r = F.when(s, c, at: frame, .init(owner: owner))
        precondition(r.error == nil, "\(c): \(r.error!)")
        return r.state
    }

    func pushing(_ config: NavigatorConfig = retargeting, animator: JSON = ["curve": "linear"])
        -> NavigatorState
    { Self.pushing(config, animator: animator) }

    func decided(_ s: NavigatorState, _ c: NavigationCommand, at frame: Int64) -> NavigatorState {
        Self.decided(s, c, at: frame)
    }

    // MARK: Reversal

    @Test(arguments: [
        NavigationCommand.pop(.standard), .cancel(completionSpeed: 1, completionCurve: nil),
    ])
    func aPopOrACancelWhileThePushAnimatesReversesIt(_ command: NavigationCommand) {
        let r = F.when(pushing(), command, at: 17, .init(requestID: "r"))
        #expect(
            r.events == [
                F.event(
                    .reversed(transition: 1, fraction: 7 / run, velocity: 1 / run * 60, completionSpeed: 1), at: 17,
                    command: "r")
            ])
        #expect(r.state.transition?.phase == .cancelling)
        #expect(r.state.transition?.fraction(at: 17) == 7 / run)
        // It keeps going forward a little before it turns: it kept its velocity.
        #expect(r.state.transition!.fraction(at: 18) > 7 / run)
        let end = Navigator.advance(r.state, toFrame: 1000)
        #expect(end.map(\.type) == ["transition.cancelled"])
        let after = end.reduce(r.state, Navigator.evolve)
        #expect(after.stack == [home])
        #expect(after.transition == nil)
    }

    /// A push a gesture's owner holds (caught and finished by "o") turns back only for a pop with that
    /// owner; anyone else's pop is `busy`, and the message names the owner rather than the policy.
    @Test func aPopOfAnOwnedPushTurnsItBackOnlyWithItsOwner() {
        let caught = Self.decided(pushing(), .begin(nil, animator: nil), at: 14, owner: "o")
        let owned = Self.decided(
            caught, .finish(velocity: nil, completionSpeed: 0.2, completionCurve: .linear), at: 15, owner: "o")
        let refused = F.when(owned, .pop(.standard), at: 17)
        #expect(refused.error?.code == .busy)
        #expect(
            refused.error?.message
                == "Transition 1 (push, finishing) on main is held by owner \"o\": a pop turns it back only with "
                + "that owner; retry when it ends.")
        #expect(F.when(owned, .pop(.standard), at: 17, .init(owner: "o")).events.map(\.type) == ["transition.reversed"])
    }

    @Test func aPopUnderTheQueuePolicyStillWaitsItsTurn() {
        let r = F.when(
            pushing(
                F.config {
                    $0.busy = .queue
                    $0.retarget = true
                }), .pop(.standard), at: 17)
        #expect(r.events.map(\.type) == ["transition.queued"])
    }

    @Test(arguments: [
        NavigationCommand.pop(TransitionOptions(animated: false)), .pop(TransitionOptions(animator: ["style": "fade"])),
        .popToRoot(.standard), .dismiss(.standard), .push(ScreenSpec(name: "Other"), .standard),
    ])
    func anythingButAPlainPopOfThePushedScreenIsBusy(_ command: NavigationCommand) {
        #expect(F.when(pushing(), command, at: 17).error?.code == .busy)
    }

    /// Without `retarget` the protocol's defaults hold: a `pop` during the push is `busy`, and a
    /// `cancel` with nothing more runs back from rest with `easeInOut` over `p × D / completionSpeed`.
    @Test func withoutRetargetAPopIsBusyAndACancelRunsBackFromRest() {
        let plain = pushing(NavigatorConfig())
        #expect(F.when(plain, .pop(.standard), at: 17).error?.code == .busy)
        #expect(F.when(plain, .dismiss(.standard), at: 17).error?.code == .busy)
        let r = F.when(plain, .cancel(completionSpeed: 1, completionCurve: nil), at: 17, .init(requestID: "c"))
        #expect(
            r.events == [
                F.event(
                    .cancelling(
                        transition: 1, fraction: 7 / run, completionSpeed: 1, completionCurve: .easeInOut,
                        reason: .requested, velocity: nil), at: 17, command: "c")
            ])
        let paused = decided(plain, .pause, at: 17)
        let fromPause = F.when(paused, .cancel(completionSpeed: 1, completionCurve: nil), at: 20)
        #expect(fromPause.events.map(\.type) == ["transition.cancelling"])
    }

    @Test func aCurveOrAnAnimatorOnCancelCompletesAsUIKitWould() {
        let curve = F.when(pushing(), .cancel(completionSpeed: 1, completionCurve: .linear), at: 17)
        #expect(curve.events.map(\.type) == ["transition.cancelling"])
        // A spring animator starts with the rate the fraction moved at: forward, so negative toward 0.
        let spring = CompletionAnimator(curve: .spring(.dampingRatio(ratio: 1, initialVelocity: 0)))
        let r = F.when(pushing(), .cancel(completionSpeed: 1, completionCurve: nil, animator: spring), at: 17)
        guard case .cancelling(_, let fraction, _, .spring(.dampingRatio(_, let v)), _, _)? = r.events.first?.kind
        else {
            Issue.record("not a spring cancel: \(r.events)")
            return
        }
        #expect(abs(v - -(1 / run * 60) / fraction) < 1e-9)
    }

    @Test func aReversalAtTheStartFrameCancelsAtOnce() {
        let r = F.when(pushing(), .pop(.standard), at: 10)
        #expect(r.events.map(\.type) == ["transition.reversed", "transition.cancelled"])
        #expect(r.state.stack == [home])
    }

    // MARK: Pause, seek, resume

    @Test func pauseHoldsTheFractionAndResumeRunsOnAtTheAnimatorsPace() {
        let paused = F.when(pushing(), .pause, at: 17)
        #expect(paused.events == [F.event(.paused(transition: 1, fraction: 7 / run), at: 17)])
        #expect(paused.state.transition?.phase == .paused)
        for frame: Int64 in [17, 30, 500] { #expect(paused.state.transition?.fraction(at: frame) == 7 / run) }
        #expect(Navigator.advance(paused.state, toFrame: 500) == [])
        let resumed = F.when(paused.state, .resume, at: 40)
        #expect(resumed.events == [F.event(.resumed(transition: 1, fraction: 7 / run), at: 40)])
        #expect(resumed.state.transition?.phase == .animating)
        // The 14 frames it had left, from frame 40.
        #expect(resumed.state.transition?.segment.endFrame == 40 + F.defaultFrames - 7)
        let end = Navigator.advance(resumed.state, toFrame: 1000)
        #expect(end == [F.event(.completed(transition: 1), at: 40 + F.defaultFrames - 7)])
    }

    struct Seek: Sendable, CustomTestStringConvertible {
        let curve: JSON
        let value: Double
        let linearly: Bool
        var testDescription: String { "seek \(value) \(linearly ? "linearly" : "along") \(curve.serialized())" }
    }

    static let seeks: [Seek] = [JSON.string("linear"), "easeInOut", "default", ["bezier": [0.3, -0.4, 0.7, 1.4]]]
        .flatMap { curve in
            [0, 0.2, 0.5, 0.93, 1].flatMap { value in
                [true, false].map { Seek(curve: curve, value: value, linearly: $0) }
            }
        }

    /// Scrubbing linearly, the views stand at the value (`progress` is the value); along the curve,
    /// the time does (`fraction` is the value). Either way `progress` stays the curve at `fraction`.
    @Test(arguments: seeks)
    func seekStandsAtTheValueInProgressOrInTime(_ seek: Seek) throws {
        let s = decided(pushing(animator: ["curve": seek.curve]), .pause, at: 17)
        let r = F.when(s, .seek(fraction: seek.value, scrubsLinearly: seek.linearly), at: 20)
        let t = try #require(r.state.transition)
        let tick = try #require(Navigator.tick(r.state, frame: 20))
        #expect(tick.phase == .paused && t.phase == .paused)
        if seek.linearly {
            #expect(abs(tick.progress - seek.value) < 1e-12)
        } else {
            #expect(tick.fraction == seek.value)
        }
        #expect(
            r.events == [
                F.event(.seeked(transition: 1, fraction: tick.fraction, scrubsLinearly: seek.linearly), at: 20)
            ])
    }

    /// Eased curves reach 1, within rounding, a hair before their end: a scrub to 1 stands at the end.
    @Test(arguments: [JSON.string("easeInOut"), "default", "easeIn", ["bezier": [0.2, 0.9, 0.1, 1]]])
    func aLinearScrubToTheEndStandsAtTheEnd(_ curve: JSON) throws {
        let s = decided(pushing(animator: ["curve": curve]), .pause, at: 17)
        let t = try #require(F.when(s, .seek(fraction: 1, scrubsLinearly: true), at: 20).state.transition)
        #expect(t.percent == 1)
    }

    @Test func aLinearScrubOfAnOvershootingCurveStandsWhereItFirstGetsThere() throws {
        let curve = TimingCurve.bezier(x1: 0.3, y1: -0.4, x2: 0.7, y2: 1.4)
        let s = decided(pushing(animator: ["curve": curve.json]), .pause, at: 17)
        let t = try #require(F.when(s, .seek(fraction: 1, scrubsLinearly: true), at: 20).state.transition)
        #expect(t.percent < 1)
        #expect(curve.progress(atFraction: t.percent, duration: 0.35) >= 1)
        #expect(curve.progress(atFraction: t.percent - 1e-9, duration: 0.35) < 1)
    }

    @Test func aPausedCancellingTransitionResumesTowardZero() {
        var s = decided(pushing(), .cancel(completionSpeed: 1, completionCurve: .linear), at: 17)
        s = decided(s, .pause, at: 19)
        #expect(s.transition?.pausedFrom == .cancelling)
        s = decided(s, .resume, at: 25)
        #expect(s.transition?.phase == .cancelling)
        let end = Navigator.advance(s, toFrame: 1000)
        #expect(end.map(\.type) == ["transition.cancelled"])
        #expect(end.reduce(s, Navigator.evolve).stack == [home])
    }

    @Test func aPausedTransitionLeftAloneTimesOutLikeAGesture() {
        let s = decided(pushing(F.config { $0.interactionTimeout = 1 }), .pause, at: 17)
        let events = Navigator.advance(s, toFrame: 1000)
        #expect(events.map(\.type) == ["transition.cancelling", "transition.cancelled"])
        #expect(events.first?.frame == 77)
        guard case .cancelling(_, _, _, _, .timeout, _)? = events.first?.kind else {
            Issue.record("not a timeout: \(events)")
            return
        }
    }

    /// A client that never cancelled is told why its gesture is no longer interactive.
    @Test func aStepAfterTheTimeoutSaysTheTimeoutCancelledIt() {
        var s = F.when(pushing(F.config { $0.interactionTimeout = 0.2 }), .begin(nil, animator: nil), at: 17).state
        s = Navigator.advance(s, toFrame: 30).reduce(s, Navigator.evolve)
        #expect(s.transition?.phase == .cancelling)
        let r = F.when(s, .update(percent: 0.5, velocity: nil), at: 31)
        #expect(r.error?.code == .notInteractive)
        #expect(
            r.error?.message
                == "Transition 1 on main is cancelling, not interactive: it was cancelled after no update for 0.2 s "
                + "(the navigator's interactionTimeout); begin with no operation interrupts it.")
    }

    @Test func beginInterruptsAPausedTransition() {
        let s = decided(pushing(), .pause, at: 17)
        let r = F.when(s, .begin(nil, animator: nil), at: 20)
        #expect(r.events == [F.event(.interrupted(transition: 1, fraction: 7 / run, owner: nil), at: 20)])
        #expect(r.state.transition?.phase == .interactive)
        #expect(r.state.transition?.pausedFrom == nil)
    }

    // MARK: Rejections

    struct Rejection: Sendable, CustomTestStringConvertible {
        let name: String
        let given: @Sendable () -> NavigatorState
        let command: NavigationCommand
        let code: ErrorCode
        var testDescription: String { name }
    }

    static let rejections: [Rejection] = [
        Rejection(name: "pause of nothing", given: { F.given([F.created()]) }, command: .pause, code: .noTransition),
        Rejection(
            name: "seek of nothing", given: { F.given([F.created()]) },
            command: .seek(fraction: 0.5, scrubsLinearly: true), code: .noTransition),
        Rejection(name: "resume of nothing", given: { F.given([F.created()]) }, command: .resume, code: .noTransition),
        Rejection(name: "resume when running", given: { pushing() }, command: .resume, code: .notInteractive),
        Rejection(
            name: "seek when running", given: { pushing() }, command: .seek(fraction: 0.5, scrubsLinearly: false),
            code: .notInteractive),
        Rejection(
            name: "pause when paused", given: { decided(pushing(), .pause, at: 12) }, command: .pause,
            code: .notInteractive),
        Rejection(
            name: "pause of a gesture",
            given: {
                F.when(F.given([F.created()]), .begin(.push(ScreenSpec(name: "D")), animator: nil), at: 12).state
            },
            command: .pause, code: .notInteractive),
        Rejection(
            name: "pause by another owner",
            given: {
                var t = F.when(
                    F.given([F.created()]), .begin(.push(ScreenSpec(name: "D")), animator: nil), at: 11,
                    .init(owner: "pan")
                ).state
                t = decided(
                    t, .finish(velocity: nil, completionSpeed: 1, completionCurve: .linear), at: 12, owner: "pan")
                return t
            }, command: .pause, code: .notOwner),
        Rejection(
            name: "finish when paused", given: { decided(pushing(), .pause, at: 12) },
            command: .finish(velocity: nil, completionSpeed: 1, completionCurve: .easeInOut), code: .notInteractive),
    ]

    @Test(arguments: rejections)
    func badScrubsAreRefusedWithTheirCodes(_ r: Rejection) {
        let given = r.given()
        let result = F.when(given, r.command, at: 15)
        #expect(result.error?.code == r.code, "\(result.error?.message ?? "accepted")")
        #expect(result.events.allSatisfy { $0.command == nil }, "only the clock's own events")
    }

    struct Parse: Sendable, CustomTestStringConvertible {
        let name: String
        let args: JSONObject
        let command: NavigationCommand?
        let code: ErrorCode?
        var testDescription: String { "\(name) \(JSON.object(args).serialized())" }
    }

    static let parses: [Parse] = [
        Parse(name: "pause", args: [:], command: .pause, code: nil),
        Parse(name: "resume", args: [:], command: .resume, code: nil),
        Parse(name: "seek", args: ["fraction": 0.25], command: .seek(fraction: 0.25, scrubsLinearly: true), code: nil),
        Parse(
            name: "seek", args: ["fraction": 1, "scrubsLinearly": false],
            command: .seek(fraction: 1, scrubsLinearly: false),
            code: nil),
        Parse(name: "seek", args: [:], command: nil, code: .badRequest),
        Parse(name: "seek", args: ["fraction": 1.5], command: nil, code: .invalidArgument),
        Parse(name: "seek", args: ["fraction": -0.1], command: nil, code: .invalidArgument),
        Parse(name: "seek", args: ["fraction": "half"], command: nil, code: .badRequest),
        Parse(name: "seek", args: ["fraction": 0.5, "scrubsLinearly": 1], command: nil, code: .badRequest),
        Parse(name: "pause", args: ["fraction": 0.5], command: nil, code: .badRequest),
        Parse(name: "cancel", args: [:], command: .cancel(completionSpeed: 1, completionCurve: nil), code: nil),
        Parse(
            name: "cancel", args: ["completionCurve": "linear"],
            command: .cancel(completionSpeed: 1, completionCurve: .linear),
            code: nil),
        Parse(
            name: "end", args: ["animator": ["curve": "easeOut"]],
            command: .end(percent: nil, velocity: nil, animator: CompletionAnimator(curve: .easeOut)), code: nil),
        Parse(name: "end", args: ["animator": ["durationFactor": 0]], command: nil, code: .invalidArgument),
    ]

    @Test(arguments: parses)
    func requestsParseAndRoundTrip(_ p: Parse) throws {
        do {
            let command = try NavigationCommand(name: p.name, arguments: p.args)
            #expect(command == p.command)
            #expect(try NavigationCommand(name: p.name, arguments: command.arguments) == command)
        } catch {
            #expect(error.code == p.code, "\(error.message)")
        }
    }
}
