import Testing

@testable import SegueCore

/// A transition reversed mid-flight keeps its position and velocity (docs/design.md, "Reversal and scrubbing"):
/// frame by frame, no view value steps further than the animator's own largest step, and no step
/// differs from the one before it by more than that step either.
@Suite struct ReversalContinuityTests {
    typealias F = Fixture

    /// Animators as a push's `animator` argument: curves, overshooting beziers, the three spring forms,
    /// and styles that move other values than `x`.
    static let animators: [JSON] = [
        ["curve": "linear"],
        ["curve": "easeInOut"],
        ["curve": "default"],
        ["curve": "easeIn", "duration": 0.2],
        ["curve": ["bezier": [0.3, -0.4, 0.7, 1.4]]],
        ["curve": ["spring": ["dampingRatio": 0.6, "initialVelocity": 0]], "duration": 0.6],
        ["curve": ["spring": ["response": 0.5, "dampingFraction": 0.8]]],
        ["curve": ["spring": ["mass": 1, "stiffness": 120, "damping": 14, "initialVelocity": 0]]],
        ["style": "zoom", "curve": "easeOut", "duration": 0.5],
        ["style": "flip", "curve": "easeInOut"],
        ["preset": "rotate.push"],
    ]

    enum Reverser: String, CaseIterable, Sendable {
        /// `pop` of the screen the push brings.
        case pop
        /// `cancel` with no curve and no animator.
        case cancel
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let animator: JSON
        /// Where in the animator's own run it is reversed, as a share of its frames.
        let at: Double
        let reverser: Reverser
        var testDescription: String { "\(reverser.rawValue) at \(at) of \(animator.serialized())" }
    }

    static let cases: [Case] = animators.flatMap { animator in
        [0.02, 0.1, 0.25, 0.5, 0.75, 0.9, 0.999].flatMap { at in
            Reverser.allCases.map { Case(animator: animator, at: at, reverser: $0) }
        }
    }

    /// Home, then a push of Detail at frame 10 with `animator`.
    /// Reversals keep the motion only on a navigator created with `retarget`.
    static let retargeting = F.config { $0.retarget = true }

    static func pushing(_ animator: JSON) -> NavigatorState {
        F.given(
            F.log(
                [(.push(ScreenSpec(name: "Detail"), TransitionOptions(animator: animator)), 10)],
                config: retargeting))
    }

    /// The ticks from `first` until the transition's final one, `commands` decided at their frames.
    static func run(_ state: NavigatorState, from first: Int64, _ commands: [Int64: NavigationCommand] = [:])
        -> [Tick]
    {
        var s = state
        var out: [Tick] = []
        for frame in first..<(first + 5000) {
            if let command = commands[frame] {
                let r = F.when(s, command, at: frame)
                precondition(r.error == nil, "\(command) at \(frame): \(r.error!)")
                s = r.state
            } else {
                for e in Navigator.advance(s, toFrame: frame) { s = Navigator.evolve(s, e) }
            }
            let here = Navigator.ticks(s, frame: frame)
            out += here
            if here.contains(where: \.final) { break }
        }
        return out
    }

    /// Every view value a tick carries, in one order.
    static func values(_ tick: Tick) -> [Double] {
        [tick.views.from, tick.views.to].flatMap {
            [$0.x, $0.y, $0.alpha, $0.scale, $0.rotation, $0.rotationY, $0.mask]
        }
    }

    /// The largest step of each value between consecutive ticks.
    static func largestSteps(_ ticks: [Tick]) -> [Double] {
        let series = ticks.map(values)
        var steps = [Double](repeating: 0, count: series[0].count)
        for (a, b) in zip(series, series.dropFirst()) {
            for i in steps.indices { steps[i] = max(steps[i], abs(b[i] - a[i])) }
        }
        return steps
    }

    /// The worst step and the worst change of step of each value in `ticks`, each as a share of
    /// `bound` (a value the bound holds still must not move at all).
    static func worst(_ ticks: [Tick], bound: [Double]) -> (step: Double, change: Double, value: Int) {
        let series = ticks.map(values)
        var (step, change, value) = (0.0, 0.0, 0)
        func share(_ x: Double, _ i: Int) -> Double { bound[i] > 0 ? x / bound[i] : (x > 1e-12 ? .infinity : 0) }
        for k in 0..<(series.count - 1) {
            for i in bound.indices {
                let d = series[k + 1][i] - series[k][i]
                if share(abs(d), i) > step { (step, value) = (share(abs(d), i), i) }
                guard k + 2 < series.count else { continue }
                let next = series[k + 2][i] - series[k + 1][i]
                if share(abs(next - d), i) > change { (change, value) = (share(abs(next - d), i), i) }
            }
        }
        return (step, change, value)
    }

    @Test(arguments: cases)
    func aReversalKeepsEveryViewValueAndItsRateWithinTheAnimatorsOwnStep(_ c: Case) throws {
        let state = Self.pushing(c.animator)
        let own = Self.run(state, from: 10)
        #expect(own.last?.phase == .completed)
        let frames = Int64(own.count - 1)
        let at = 10 + min(frames - 1, max(1, Int64((Double(frames) * c.at).rounded())))
        let command: NavigationCommand =
            c.reverser == .pop ? .pop(.standard) : .cancel(completionSpeed: 1, completionCurve: nil)
        let reversed = Self.run(state, from: 10, [at: command])
        #expect(reversed.last?.phase == .cancelled)
        #expect(reversed.last?.fraction == 0)
        #expect(reversed.first { $0.frame == at + 1 }?.phase == .cancelling)
        let bound = Self.largestSteps(own)
        let (step, change, value) = Self.worst(reversed, bound: bound)
        #expect(step <= 1 + Self.slack, "a step of \(step) × the animator's own largest (value \(value))")
        #expect(change <= 1 + Self.slack, "a step changes by \(change) × the animator's own largest (value \(value))")
    }

    /// Frames sample a curve's steepest stretch at whatever phase the clock gives them; a reversal,
    /// starting between, can land one window nearer the peak (0.094 % over, the worst in the table).
    static let slack = 0.002

    /// UIKit's cancel, from rest along a completion curve, breaks the bound the reversal keeps: a
    /// linear completion flips the velocity in one frame, `easeInOut` then runs faster than the
    /// animator ever does.
    @Test(arguments: [TimingCurve.linear, .easeInOut])
    func aCancelAlongACurveFromRestJumps(_ curve: TimingCurve) throws {
        let state = Self.pushing(["curve": "linear"])
        let bound = Self.largestSteps(Self.run(state, from: 10))
        let cancelled = Self.run(state, from: 10, [20: .cancel(completionSpeed: 1, completionCurve: curve)])
        let (step, change, _) = Self.worst(cancelled, bound: bound)
        #expect(step > 1 + Self.slack || change > 1 + Self.slack)
    }

    /// An interactive push released into a spring, reversed while the spring finishes: the turn starts
    /// at the spring's rate. The bound is the larger of the animator's own steps and the finishing
    /// spring's, as the release left it.
    @Test(arguments: [0.05, 0.2, 0.5])
    func aHandOffReversedWhileFinishingKeepsItsRate(_ share: Double) throws {
        var s = F.when(F.given(F.log([], config: Self.retargeting)), .begin(.push(ScreenSpec(name: "Detail")), animator: nil), at: 10).state
        for frame in Int64(11)...20 {
            s = F.when(s, .update(percent: Double(frame - 10) * 0.03, velocity: 1.8), at: frame).state
        }
        let spring = CompletionAnimator(curve: .spring(.response(response: 0.45, dampingFraction: 0.9)))
        s =
            F.when(s, .finish(velocity: 1.8, completionSpeed: 1, completionCurve: .easeInOut, animator: spring), at: 21)
            .state
        let finishing = Self.run(s, from: 21)
        let at = 21 + Int64((Double(finishing.count) * share).rounded())
        let reversed = Self.run(s, from: 21, [at: .cancel(completionSpeed: 1, completionCurve: nil)])
        #expect(reversed.last?.phase == .cancelled)
        let own = Self.largestSteps(Self.run(Self.pushing([:]), from: 10))
        let bound = zip(own, Self.largestSteps(finishing)).map { max($0, $1) }
        let (step, change, value) = Self.worst(reversed, bound: bound)
        #expect(step <= 1 + Self.slack, "a step of \(step) × the bound (value \(value))")
        #expect(change <= 1 + Self.slack, "a step changes by \(change) × the bound (value \(value))")
    }

    /// A paused transition reversed starts from rest: it sets off as the animator does, no faster.
    @Test(arguments: [0.1, 0.5, 0.9])
    func aPausedTransitionReversesFromRest(_ share: Double) throws {
        let state = Self.pushing(["curve": "easeInOut"])
        let own = Self.run(state, from: 10)
        let at = 10 + Int64((Double(own.count - 1) * share).rounded())
        let reversed = Self.run(
            state, from: 10, [at: .pause, at + 5: .cancel(completionSpeed: 1, completionCurve: nil)])
        #expect(reversed.map(\.phase).contains(.paused))
        #expect(reversed.last?.phase == .cancelled)
        let (step, change, value) = Self.worst(reversed, bound: Self.largestSteps(own))
        #expect(step <= 1 + Self.slack && change <= 1 + Self.slack, "\(step), \(change) (value \(value))")
    }
}
