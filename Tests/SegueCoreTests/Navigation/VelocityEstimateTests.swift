import SeededRandom
import Testing

@testable import SegueCore

/// The release velocity the daemon measures when `end` names none: a least-squares fit over the last
/// 100 ms of the gesture, within 5 % of the finger's true release velocity on synthetic streams, and
/// the end rule deciding with it as react-navigation's `gestureVelocityImpact` 0.3 would.
@Suite struct VelocityEstimateTests {
    typealias F = Fixture

    /// A synthetic finger: `percent(t)` sampled at `hz` for `duration` seconds, then released.
    struct Stream: Sendable, CustomTestStringConvertible {
        let name: String
        let hz: Double
        let duration: Double
        /// Whether updates carry the client's `time` (otherwise only their frames tell when).
        let clientTimed: Bool
        let jitter: Double
        let percent: @Sendable (Double) -> Double
        /// The finger's velocity at release (d percent / dt at `duration`), fraction/s.
        let release: Double
        var testDescription: String { name }

        /// (time in s, percent) of every update, jittered by a fixed sequence.
        var points: [(t: Double, p: Double)] {
            var g = SplitMix64(seed: 22)
            let count = Int((duration * hz).rounded())
            return (0...count).map { i in
                let t = Double(i) / hz
                let noise = jitter * (Double(g.next() % 2001) / 1000 - 1)
                return (t, min(1, max(0, percent(t) + noise)))
            }
        }
    }

    static let streams: [Stream] = [
        Stream(
            name: "constant 1.5/s at 60 Hz", hz: 60, duration: 0.3, clientTimed: true, jitter: 0,
            percent: { 0.05 + 1.5 * $0 }, release: 1.5),
        Stream(
            name: "accelerating 0.3 → 2.1/s", hz: 60, duration: 0.3, clientTimed: true, jitter: 0,
            percent: { 0.3 * $0 + 3 * $0 * $0 }, release: 0.3 + 6 * 0.3),
        Stream(
            name: "decelerating 2.5 → 1.3/s", hz: 60, duration: 0.3, clientTimed: true, jitter: 0,
            percent: { 2.5 * $0 - 2 * $0 * $0 }, release: 2.5 - 4 * 0.3),
        // ±0.001 of the container: under half a point on a 390-point-wide phone.
        Stream(
            name: "constant 1.5/s with ±0.001 jitter", hz: 60, duration: 0.3, clientTimed: true, jitter: 0.001,
            percent: { 0.05 + 1.5 * $0 }, release: 1.5),
        Stream(
            name: "120 Hz touches, two per frame", hz: 120, duration: 0.3, clientTimed: true, jitter: 0.001,
            percent: { 0.1 + 1.2 * $0 }, release: 1.2),
        // Moves for 0.2 s, then held still for 0.1 s (the updates keep coming): releases at rest.
        Stream(
            name: "a pause before release", hz: 60, duration: 0.3, clientTimed: true, jitter: 0,
            percent: { 0.05 + 1.5 * min($0, 0.2) }, release: 0),
        Stream(
            name: "no client times, 30 Hz", hz: 30, duration: 0.3, clientTimed: false, jitter: 0,
            percent: { 0.1 + 1.2 * $0 }, release: 1.2),
    ]

    /// The stream played into an interactive pop begun at frame 600 (updates land in the frame their
    /// time falls in), then `end` with no velocity in the frame of the last update; or, with
    /// `endCarriesTheLastPoint`, the last point sent as `end`'s own percent and geometry.
    func play(
        _ s: Stream, config: NavigatorConfig = NavigatorConfig(), endCarriesTheLastPoint: Bool = false
    ) throws -> NavigationEvent {
        var state = F.given(
            F.log([(.push(ScreenSpec(name: "List"), TransitionOptions(animated: false)), 1)], config: config))
        let start: Int64 = 600
        let ns: Int64 = 1_000_000_000
        let clientStart: Int64 = 77 * ns
        func at(_ t: Double) -> Int64 { start + Int64((t * 60).rounded(.down)) }
        func time(_ t: Double) -> Int64? { s.clientTimed ? clientStart + Int64((t * 1e9).rounded()) : nil }
        state = F.when(state, .begin(.pop, animator: nil, geometry: GestureGeometry(time: time(0))), at: start).state
        var last = start
        let points = s.points.dropFirst()
        for (t, p) in endCarriesTheLastPoint ? points.dropLast() : points {
            last = at(t)
            let r = F.when(
                state, .update(percent: p, velocity: nil, geometry: GestureGeometry(time: time(t))), at: last)
            try #require(r.error == nil)
            state = r.state
        }
        var end = NavigationCommand.end(percent: nil, velocity: nil)
        if endCarriesTheLastPoint, let (t, p) = points.last {
            last = at(t)
            end = .end(percent: p, velocity: nil, geometry: GestureGeometry(time: time(t)))
        }
        let ended = F.when(state, end, at: last)
        try #require(ended.error == nil)
        return try #require(ended.events.first { $0.eventType != .interactionUpdated })
    }

    static func velocity(_ event: NavigationEvent) -> Double? {
        switch event.kind {
        case .finishing(_, _, let v, _, _), .cancelling(_, _, _, _, _, let v): v
        default: nil
        }
    }

    @Test(arguments: streams, [false, true])
    func theMeasuredReleaseVelocityIsWithinFivePercent(_ s: Stream, endCarriesTheLastPoint: Bool) throws {
        let event = try play(s, endCarriesTheLastPoint: endCarriesTheLastPoint)
        let measured = try #require(Self.velocity(event))
        // Within 5 % of the release velocity; for a finger at rest, of the speed it had before.
        let scale = s.release == 0 ? 1.5 : abs(s.release)
        #expect(abs(measured - s.release) <= 0.05 * scale, "measured \(measured), true \(s.release)")
    }

    struct EndCase: Sendable, CustomTestStringConvertible {
        let percent: Double
        let velocity: Double
        var testDescription: String { "released at \(percent) moving \(velocity)/s" }
    }

    /// Releases where the velocity, not the position, decides: react-navigation finishes when
    /// `translation + velocity × 0.3 > distance / 2`.
    static let ends: [EndCase] = [
        EndCase(percent: 0.4, velocity: 1.5), EndCase(percent: 0.6, velocity: -1.5),
        EndCase(percent: 0.3, velocity: 1.2), EndCase(percent: 0.55, velocity: -0.5),
        EndCase(percent: 0.45, velocity: 0), EndCase(percent: 0.7, velocity: -0.3),
        EndCase(percent: 0.2, velocity: 0.5), EndCase(percent: 0.8, velocity: 0.4),
    ]

    @Test(arguments: ends)
    func theEndRuleDecidesAsReactNavigationWould(_ c: EndCase) throws {
        // Without a fling velocity, the daemon's rule is react-navigation's.
        var config = NavigatorConfig()
        config.endRule = EndRule(threshold: 0.5, velocityImpact: 0.3, flingVelocity: 1000)
        let stream = Stream(
            name: "", hz: 60, duration: 0.25, clientTimed: true, jitter: 0.001,
            percent: { c.percent + c.velocity * ($0 - 0.25) }, release: c.velocity)
        let event = try play(stream, config: config)
        let reactNavigation = c.percent + c.velocity * 0.3 > 0.5
        #expect(event.eventType == (reactNavigation ? .transitionFinishing : .transitionCancelling))
        let measured = try #require(Self.velocity(event))
        #expect(abs(measured - c.velocity) <= 0.05 * max(abs(c.velocity), 1))
    }

    /// A velocity the client gave stays the one `end` uses; the fit is only for clients that give none.
    @Test func aGivenVelocityIsNotReplacedByTheFit() throws {
        var state = F.given(F.log([(.push(ScreenSpec(name: "List"), TransitionOptions(animated: false)), 1)]))
        state = F.when(state, .begin(.pop, animator: nil), at: 10).state
        state = F.when(state, .update(percent: 0.2, velocity: nil), at: 12).state
        state = F.when(state, .update(percent: 0.4, velocity: -0.7), at: 14).state
        let ended = F.when(state, .end(percent: nil, velocity: nil), at: 15)
        #expect(ended.events.last.map(Self.velocity) == -0.7)
    }

    /// What `interaction.updated` records (and ticks carry) for a client that gives times and no
    /// velocity: the fit, so 120 Hz touches batched two a frame read at the finger's speed, not half.
    /// Also when the `begin` gave no time: the fit then leaves that point out.
    @Test(arguments: [true, false])
    func anUpdateWithTimesRecordsTheFittedVelocity(beginTimed: Bool) throws {
        var state = F.given(F.log([(.push(ScreenSpec(name: "List"), TransitionOptions(animated: false)), 1)]))
        let ns: Int64 = 1_000_000_000
        let begin = GestureGeometry(time: beginTimed ? 5 * ns : nil)
        state = F.when(state, .begin(.pop, animator: nil, geometry: begin), at: 600).state
        var recorded: [Double] = []
        for i in 1...36 {
            let t = Double(i) / 120
            let update = NavigationCommand.update(
                percent: 0.1 + 1.2 * t, velocity: nil, geometry: GestureGeometry(time: 5 * ns + Int64(t * 1e9)))
            let r = F.when(state, update, at: 600 + Int64(t * 60))
            try #require(r.error == nil)
            state = r.state
            if case .updated(_, _, let v, _, _)? = r.events.last?.kind { recorded.append(v) }
        }
        #expect(recorded.suffix(20).allSatisfy { abs($0 - 1.2) < 0.06 }, "\(recorded)")
        let ended = F.when(state, .end(percent: nil, velocity: nil), at: 618)
        let released = try #require(ended.events.last.flatMap(Self.velocity))
        #expect(abs(released - 1.2) < 0.06, "end decides with the same fit: \(released)")
    }

    /// `end` with a percent records the velocity it decides with in the update it appends.
    @Test func endWithAPercentRecordsTheVelocityItDecidesWith() throws {
        var state = F.given(F.log([(.push(ScreenSpec(name: "List"), TransitionOptions(animated: false)), 1)]))
        state = F.when(state, .begin(.pop, animator: nil), at: 10).state
        let ended = F.when(state, .end(percent: 0.45, velocity: nil), at: 10)
        guard case .updated(_, _, let recorded, _, _)? = ended.events.first?.kind else {
            Issue.record("no update: \(ended.events)")
            return
        }
        #expect(recorded == Self.velocity(try #require(ended.events.last)))
    }

    /// Touches stamped far closer together than they moved (milliseconds given as nanoseconds, or
    /// one nanosecond apart) fit to an absurd speed: it is held to the ±1,000/s a request may give.
    @Test(arguments: [(spacing: Int64(16), sign: 1.0), (spacing: 1, sign: 1), (spacing: 16, sign: -1)])
    func anEstimateIsHeldToTheVelocityARequestMayGive(spacing: Int64, sign: Double) throws {
        var state = F.given(F.log([(.push(ScreenSpec(name: "List"), TransitionOptions(animated: false)), 1)]))
        let start = 0.5 - sign * 0.25
        // The begin a second before, out of the fit's 100 ms.
        state = F.when(state, .begin(.pop, animator: nil, geometry: GestureGeometry(time: 0)), at: 10).state
        for i in 0...5 {
            let update = NavigationCommand.update(
                percent: start + sign * 0.05 * Double(i), velocity: nil,
                geometry: GestureGeometry(time: 1_000_000_000 + spacing * Int64(i)))
            state = F.when(state, update, at: 11 + Int64(i)).state
        }
        let ended = F.when(state, .end(percent: nil, velocity: nil), at: 17)
        let velocity = try #require(ended.events.last.flatMap(Self.velocity))
        #expect(velocity == sign * VelocityEstimator.limit)
    }

    @Test func theFitIsExactForAParabolaAndALine() throws {
        let t = [-0.1, -0.075, -0.05, -0.025, 0]
        let slope = try #require(VelocityEstimator.quadraticSlope(t, t.map { 0.5 + 2 * $0 - 7 * $0 * $0 }))
        #expect(abs(slope - 2) < 1e-9)
        #expect(abs(try #require(VelocityEstimator.linearSlope([-0.05, 0], [0.2, 0.3])) - 2) < 1e-12)
        #expect(
            VelocityEstimator.estimate([GestureSample(frame: 3, clientTime: nil, percent: 1)], clock: F.clock) == nil)
    }
}
