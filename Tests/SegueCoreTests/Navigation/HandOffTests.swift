import Testing

@testable import SegueCore

/// `animator` on `finish` and `cancel`: a spring starts with the finger's velocity scaled to the
/// distance left (`UISpringTimingParameters(initialVelocity:)`), a curve keeps completionSpeed and
/// completionCurve's behaviour with `durationFactor`; and no view value nor its first derivative
/// jumps at the release.
@Suite struct HandOffTests {
    typealias F = Fixture
    /// Springs slow enough next to the frame rate (ω₀·Δt under 0.5) for frames to show their motion:
    /// the damping-ratio form runs the completion's duration, so it gets a factor of 3 (about 0.4 s
    /// for 0.4 of a 0.35 s transition) where the bare 0.14 s would make it a spring of 57 rad/s.
    static let springs: [CompletionAnimator] = [
        CompletionAnimator(curve: .spring(.dampingRatio(ratio: 0.8, initialVelocity: 0)), durationFactor: 3),
        CompletionAnimator(curve: .spring(.physical(mass: 1, stiffness: 300, damping: 30, initialVelocity: 0))),
        CompletionAnimator(curve: .spring(.response(response: 0.4, dampingFraction: 0.85))),
    ]

    // MARK: Requests

    struct Parse: Sendable, CustomTestStringConvertible {
        let args: JSONObject
        let animator: CompletionAnimator?
        let code: ErrorCode?
        var testDescription: String { JSON.object(args).serialized() }
    }

    static let parses: [Parse] = [
        Parse(
            args: ["animator": ["curve": ["spring": ["dampingRatio": 0.7, "initialVelocity": 0]]]],
            animator: CompletionAnimator(curve: .spring(.dampingRatio(ratio: 0.7, initialVelocity: 0))), code: nil),
        Parse(
            args: ["animator": ["curve": "easeOut", "durationFactor": 2]],
            animator: CompletionAnimator(curve: .easeOut, durationFactor: 2), code: nil),
        Parse(args: ["animator": [:]], animator: CompletionAnimator(), code: nil),
        Parse(args: ["animator": ["durationFactor": 0]], animator: nil, code: .invalidArgument),
        Parse(args: ["animator": ["curve": "easeOut", "style": "fade"]], animator: nil, code: .badRequest),
        Parse(args: ["animator": ["curve": "wobbly"]], animator: nil, code: .invalidArgument),
        Parse(args: ["animator": ["curve": "easeOut"], "completionSpeed": 2], animator: nil, code: .badRequest),
        Parse(args: ["animator": "spring"], animator: nil, code: .badRequest),
    ]

    @Test(arguments: parses)
    func finishAndCancelReadTheCompletionAnimatorAlike(_ parse: Parse) throws {
        for name in ["finish", "cancel"] {
            do {
                let command = try NavigationCommand(name: name, arguments: parse.args)
                #expect(parse.code == nil)
                switch command {
                case .finish(_, _, _, let animator), .cancel(_, _, _, let animator): #expect(animator == parse.animator)
                default: Issue.record("\(name) parsed as \(command)")
                }
                #expect(try NavigationCommand(name: name, arguments: command.arguments) == command)
            } catch {
                #expect(error.code == parse.code, "\(name): \(error.message)")
            }
        }
    }

    // MARK: Decisions

    /// Home → List, then an interactive pop dragged at `velocity` to `percent`: one update a frame
    /// from frame 100 to frame `release`.
    func dragged(to percent: Double, velocity: Double, release: Int64 = 120) -> NavigatorState {
        var s = F.given(F.log([(.push(ScreenSpec(name: "List"), TransitionOptions(animated: false)), 1)]))
        s = F.when(s, .begin(.pop, animator: ["curve": "linear"]), at: 100).state
        for frame in 101...release {
            let p = percent - velocity * Double(release - frame) / 60
            s = F.when(s, .update(percent: min(1, max(0, p)), velocity: velocity), at: frame).state
        }
        return s
    }

    struct HandOff: Sendable, CustomTestStringConvertible {
        let finish: Bool
        let percent: Double
        let velocity: Double
        let spring: CompletionAnimator
        var testDescription: String {
            "\(finish ? "finish" : "cancel") at \(percent) moving \(velocity)/s into \(spring.json.serialized())"
        }
    }

    static let handOffs: [HandOff] = springs.flatMap { spring in
        [
            HandOff(finish: true, percent: 0.6, velocity: 1.5, spring: spring),
            HandOff(finish: true, percent: 0.3, velocity: 0.8, spring: spring),
            HandOff(finish: false, percent: 0.4, velocity: -1.2, spring: spring),
            // Still moving forward when cancelled: the spring first carries on, then turns back.
            HandOff(finish: false, percent: 0.5, velocity: 0.6, spring: spring),
        ]
    }

    func release(_ h: HandOff, animator: CompletionAnimator?) -> (NavigatorState, NavigationEvent) {
        let s = dragged(to: h.percent, velocity: h.velocity)
        let command: NavigationCommand =
            h.finish
            ? .finish(velocity: h.velocity, completionSpeed: 1, completionCurve: .easeInOut, animator: animator)
            : .cancel(completionSpeed: 1, completionCurve: .easeInOut, velocity: h.velocity, animator: animator)
        let r = F.when(s, command, at: 120)
        precondition(r.error == nil, "\(r.error!)")
        return (r.state, r.events.last!)
    }

    @Test(arguments: handOffs)
    func theSpringStartsWithTheFingersVelocityScaledToTheDistanceLeft(_ h: HandOff) throws {
        let (_, event) = release(h, animator: h.spring)
        var curve: TimingCurve?
        switch event.kind {
        case .finishing(_, _, _, _, let c), .cancelling(_, _, _, let c, _, _): curve = c
        default: Issue.record("not a release: \(event)")
        }
        let relative = h.finish ? h.velocity / (1 - h.percent) : -h.velocity / h.percent
        switch curve {
        case .spring(.dampingRatio(_, let v))?, .spring(.physical(_, _, _, let v))?:
            #expect(abs(v - relative) < 1e-12)
        default: Issue.record("not a spring: \(curve)")
        }
    }

    /// The fraction and the views, frame by frame, from `first` to the end of the completion.
    func frames(_ state: NavigatorState, from first: Int64, before: NavigatorState) -> [Tick] {
        var ticks: [Tick] = []
        for frame in first..<120 { ticks += Navigator.ticks(before, frame: frame) }
        var s = state
        var frame: Int64 = 120
        while true {
            for e in Navigator.advance(s, toFrame: frame) { s = Navigator.evolve(s, e) }
            let here = Navigator.ticks(s, frame: frame)
            ticks += here
            if here.contains(where: \.final) || frame > 2000 { return ticks }
            frame += 1
        }
    }

    /// The largest change of a per-frame step over the completion's own frames (its second
    /// difference), and the change at the release: the bound the hand-off must keep.
    static func jumps(_ values: [Double], release: Int) -> (atRelease: Double, ownLargest: Double) {
        func step(_ i: Int) -> Double { values[i + 1] - values[i] }
        let atRelease = abs(step(release) - step(release - 1))
        var own = 0.0
        for i in (release + 1)..<(values.count - 2) { own = max(own, abs(step(i) - step(i - 1))) }
        return (atRelease, own)
    }

    @Test(arguments: handOffs)
    func noValueNorItsDerivativeJumpsAtTheRelease(_ h: HandOff) throws {
        // The same finger, one frame earlier: the state every tick before the release comes from.
        let before = dragged(to: h.percent - h.velocity / 60, velocity: h.velocity, release: 119)
        let (after, _) = release(h, animator: h.spring)
        let ticks = frames(after, from: 110, before: before)
        let release = 10  // index of frame 120
        #expect(ticks[release].frame == 120 && ticks[release].phase != .interactive)
        // Bound: at the release, no frame-to-frame step of the fraction or of a moving view's x
        // changes by more than the completion's own largest change between two steps.
        for (name, values) in [
            ("fraction", ticks.map(\.fraction)), ("from.x", ticks.map(\.views.from.x)),
            ("to.x", ticks.map(\.views.to.x)),
        ] {
            let (atRelease, own) = Self.jumps(values, release: release)
            #expect(
                atRelease <= own + 1e-12, "\(name): step changes by \(atRelease) at the release, \(own) at most after")
        }
        // The values themselves: the step at the release is no larger than the largest the animation takes.
        let steps = zip(ticks.dropFirst(), ticks).map { abs($0.fraction - $1.fraction) }
        #expect(steps[release] <= steps[(release + 1)...].max()! + 1e-12)
    }

    /// The same release into UIKit's default completion (easeInOut, starting at rest) does jump: the
    /// bound above is one a completion without hand-off fails.
    @Test func aCurveCompletionStartsFromRest() throws {
        let h = HandOff(finish: true, percent: 0.6, velocity: 1.5, spring: CompletionAnimator())
        let before = dragged(to: h.percent - h.velocity / 60, velocity: h.velocity, release: 119)
        // A completion long enough (0.56 s) that its own steps change gently.
        let (after, _) = release(h, animator: CompletionAnimator(curve: .easeInOut, durationFactor: 4))
        let ticks = frames(after, from: 110, before: before)
        let (atRelease, own) = Self.jumps(ticks.map(\.fraction), release: 10)
        #expect(atRelease > own)
    }

    /// A finger released at the very end (a finish at 1, a cancel at 0) leaves a spring nothing to
    /// move: the completion ends in its frame, as a curve's does, not after the spring's settling time.
    @Test(arguments: springs.flatMap { spring in [(true, spring), (false, spring)] })
    func aSpringWithNoDistanceLeftEndsAtOnce(finish: Bool, spring: CompletionAnimator) throws {
        let s = dragged(to: finish ? 1 : 0, velocity: finish ? 0.8 : -0.8)
        let command: NavigationCommand =
            finish
            ? .finish(velocity: nil, completionSpeed: 1, completionCurve: .easeInOut, animator: spring)
            : .cancel(completionSpeed: 1, completionCurve: .easeInOut, velocity: nil, animator: spring)
        let r = F.when(s, command, at: 120)
        #expect(r.error == nil)
        let ending: EventType = finish ? .transitionFinishing : .transitionCancelling
        let ended: EventType = finish ? .transitionCompleted : .transitionCancelled
        #expect(r.events.map(\.eventType) == [ending, ended], "\(r.events)")
        #expect(r.events.map(\.frame) == [120, 120])
        #expect(r.state.transition == nil)
    }

    @Test func aCurveAnimatorScalesTheDurationAndKeepsTheCurve() throws {
        let s = dragged(to: 0.6, velocity: 1.5)
        let r = F.when(
            s,
            .finish(
                velocity: nil, completionSpeed: 1, completionCurve: .easeInOut,
                animator: CompletionAnimator(curve: .easeOut, durationFactor: 2)), at: 120)
        #expect(
            r.events == [
                F.event(
                    .finishing(
                        transition: 2, fraction: 0.6, velocity: nil, completionSpeed: 0.5, completionCurve: .easeOut),
                    at: 120)
            ])
        // (1 − 0.6) × 0.35 s × 2 at 60 Hz.
        #expect(r.state.transition?.segment.endFrame == 120 + FrameClock.wholeFrames(0.4 * 0.35 * 2 * 60))
    }
}
