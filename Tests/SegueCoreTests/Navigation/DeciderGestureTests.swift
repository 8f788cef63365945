import Testing

@testable import SegueCore

/// Interactive transitions: begin, update, finish, cancel, end, interrupt, owner and timeout.
@Suite struct DeciderGestureTests {
    typealias F = Fixture
    let home = F.screen(1, "Home")
    let list = F.screen(2, "List")

    /// Home → List committed, at frame 1.
    var twoDeep: NavigatorState {
        F.given(F.log([(.push(ScreenSpec(name: "List"), TransitionOptions(animated: false)), 1)]))
    }

    func beginPop(owner: String? = nil, at frame: Int64 = 10) -> NavigatorState {
        let r = F.when(twoDeep, .begin(.pop, animator: nil), at: frame, .init(owner: owner))
        precondition(r.error == nil)
        return r.state
    }

    @Test func beginPopStartsAnInteractiveTransitionAtZero() {
        let r = F.when(twoDeep, .begin(.pop, animator: nil), at: 10, .init(requestID: "b", owner: "pan"))
        #expect(
            r.events == [
                F.started(
                    2, .pop, from: list, to: home, popped: [list], stack: [home], interactive: true, owner: "pan",
                    next: 3, frame: 10, command: "b")
            ])
        #expect(r.state.transition?.phase == .interactive)
        #expect(r.state.transition?.fraction(at: 50) == 0)
    }

    @Test func updateClampsAndRecordsVelocity() {
        let s = beginPop()
        let r = F.when(s, .update(percent: 0.25, velocity: 0.8), at: 12)
        #expect(r.events == [F.event(.updated(transition: 2, percent: 0.25, velocity: 0.8), at: 12)])
        #expect(r.state.transition?.fraction(at: 12) == 0.25)
        // No velocity given: estimated from the last interaction (0.25 over 6 frames at 60 Hz).
        let r2 = F.when(r.state, .update(percent: 0.5, velocity: nil), at: 18)
        #expect(r2.events == [F.event(.updated(transition: 2, percent: 0.5, velocity: 2.5, estimated: true), at: 18)])
    }

    @Test func updateAfterFinishIsNotInteractive() {
        var s = F.when(beginPop(), .update(percent: 0.4, velocity: nil), at: 11).state
        s = F.when(s, .finish(velocity: nil, completionSpeed: 1, completionCurve: .easeInOut), at: 12).state
        #expect(s.transition?.phase == .finishing)
        let r = F.when(s, .update(percent: 0.5, velocity: nil), at: 13)
        #expect(r.error?.code == .notInteractive)
        #expect(r.state == s)
    }

    @Test func cancelOfAnInteractivePopLeavesTheStackIdentical() {
        let before = twoDeep
        var s = F.when(beginPop(), .update(percent: 0.6, velocity: nil), at: 11).state
        let c = F.when(s, .cancel(completionSpeed: 1, completionCurve: .easeInOut), at: 12)
        #expect(
            c.events == [
                F.event(
                    .cancelling(
                        transition: 2, fraction: 0.6, completionSpeed: 1, completionCurve: .easeInOut,
                        reason: .requested), at: 12)
            ])
        s = c.state
        let end = 12 + FrameClock.wholeFrames(0.6 * 0.35 * 60)
        let done = Navigator.advance(s, toFrame: end)
        #expect(done == [F.event(.cancelled(transition: 2, reason: .requested), at: end)])
        let after = done.reduce(s, Navigator.evolve)
        #expect(after.stack == before.stack)
        #expect(after.modals == before.modals)
        #expect(after.transition == nil)
        let final = Navigator.ticks(after, frame: end)
        #expect(final.count == 1)
        #expect(final[0].final && final[0].fraction == 0 && final[0].phase == .cancelled)
    }

    @Test func finishFromPointThreeAtSpeedTwoEndsOnTheDocumentedFrame() {
        var s = F.when(beginPop(), .update(percent: 0.3, velocity: nil), at: 11).state
        let finishFrame: Int64 = 20
        s = F.when(s, .finish(velocity: nil, completionSpeed: 2, completionCurve: .easeInOut), at: finishFrame).state
        // ceil(0.7 × D × frameRate / 2) with D = 0.35 s, 60 Hz: ceil(7.35) = 8.
        let expectedEnd = finishFrame + 8
        #expect(Navigator.advance(s, toFrame: expectedEnd - 1) == [])
        #expect(Navigator.advance(s, toFrame: expectedEnd + 3) == [F.event(.completed(transition: 2), at: expectedEnd)])
        #expect(s.transition!.fraction(at: finishFrame) == 0.3)
        let mid = s.transition!.fraction(at: finishFrame + 4)
        #expect(mid > 0.3 && mid < 1)
    }

    @Test func interruptMidAnimationContinuesFromTheSameFraction() {
        let s = F.when(twoDeep, .pop(.standard), at: 10).state
        let f = s.transition!.fraction(at: 16)
        #expect(f > 0 && f < 1)
        let r = F.when(s, .begin(nil, animator: nil), at: 16, .init(owner: "hand"))
        #expect(r.events == [F.event(.interrupted(transition: 2, fraction: f, owner: "hand"), at: 16)])
        #expect(r.state.transition?.phase == .interactive)
        #expect(r.state.transition?.fraction(at: 16) == f)
        #expect(r.state.transition?.fraction(at: 40) == f)
        let tick = Navigator.tick(r.state, frame: 16)!
        #expect(tick.fraction == f)
        // Finishing picks up where the interruption left it.
        let fin = F.when(
            r.state, .finish(velocity: nil, completionSpeed: 1, completionCurve: .linear), at: 17, .init(owner: "hand"))
        #expect(fin.state.transition?.fraction(at: 17) == f)
    }

    /// Catching an animation is a new gesture: an interrupting begin without an owner frees a
    /// transition that was owned, so whoever drives it next needs no owner (one that went away would
    /// otherwise leave it to the interaction timeout).
    @Test func anInterruptWithoutAnOwnerFreesAnOwnedTransition() {
        let owned = F.when(
            beginPop(owner: "o"), .finish(velocity: nil, completionSpeed: 0.1, completionCurve: .linear), at: 11,
            .init(owner: "o")
        ).state
        #expect(owned.transition?.owner == "o")
        let caught = F.when(owned, .begin(nil, animator: nil), at: 12)
        #expect(
            caught.events == [
                F.event(.interrupted(transition: 2, fraction: owned.transition!.fraction(at: 12), owner: nil), at: 12)
            ])
        #expect(caught.state.transition?.owner == nil)
        #expect(F.when(caught.state, .update(percent: 0.5, velocity: nil), at: 13).error == nil)
        let taken = F.when(owned, .begin(nil, animator: nil), at: 12, .init(owner: "p")).state
        #expect(taken.transition?.owner == "p")
        #expect(F.when(taken, .update(percent: 0.5, velocity: nil), at: 13).error?.code == .notOwner)
    }

    @Test func interruptingAnInteractiveTransitionIsBusy() {
        #expect(F.when(beginPop(), .begin(nil, animator: nil), at: 11).error?.code == .busy)
        #expect(F.when(beginPop(), .begin(.pop, animator: nil), at: 11).error?.code == .busy)
    }

    @Test(arguments: [
        NavigationCommand.update(percent: 0.5, velocity: nil),
        .finish(velocity: nil, completionSpeed: 1, completionCurve: .easeInOut),
        .cancel(completionSpeed: 1, completionCurve: .easeInOut),
        .end(percent: 0.9, velocity: nil),
    ])
    func gesturesMustCarryTheOwner(command: NavigationCommand) {
        let s = beginPop(owner: "finger")
        #expect(F.when(s, command, at: 11).error?.code == .notOwner)
        #expect(F.when(s, command, at: 11, .init(owner: "thumb")).error?.code == .notOwner)
        #expect(F.when(s, command, at: 11, .init(owner: "finger")).error == nil)
    }

    /// After `finish` the gesture is still its owner's: a cancel from anyone else is refused.
    @Test func aFinishingGestureCanOnlyBeCancelledByItsOwner() {
        let finishing = F.when(
            beginPop(owner: "finger"), .finish(velocity: nil, completionSpeed: 1, completionCurve: .easeInOut), at: 11,
            .init(owner: "finger")
        ).state
        #expect(finishing.transition?.phase == .finishing)
        let cancel = NavigationCommand.cancel(completionSpeed: 1, completionCurve: .easeInOut)
        #expect(F.when(finishing, cancel, at: 12).error?.code == .notOwner)
        #expect(F.when(finishing, cancel, at: 12, .init(owner: "thumb")).error?.code == .notOwner)
        #expect(F.when(finishing, cancel, at: 12, .init(owner: "finger")).error == nil)
        // An animation nobody owns is still cancelled by anyone.
        let animating = F.when(twoDeep, .pop(.standard), at: 10).state
        #expect(F.when(animating, cancel, at: 11).error == nil)
    }

    /// Several updates in one frame (touch input faster than the frame rate) each estimate their
    /// velocity over one frame, so a finger dragged back within a frame does not fling forward.
    @Test func updatesInOneFrameEstimateVelocityOverOneFrame() {
        var s = F.when(beginPop(), .update(percent: 0.1, velocity: nil), at: 11).state
        s = F.when(s, .update(percent: 0.9, velocity: nil), at: 12).state
        #expect(s.transition?.velocity == 48)  // 0.8 in one frame at 60 Hz
        let back = F.when(s, .update(percent: 0.05, velocity: nil), at: 12)
        #expect(
            back.events == [F.event(.updated(transition: 2, percent: 0.05, velocity: -51, estimated: true), at: 12)])
        let end = F.when(back.state, .end(percent: nil, velocity: nil), at: 12)
        #expect(end.events.map(\.type) == ["transition.cancelling"])
    }

    /// `end` without a velocity uses the last update's only while it is fresh: a finger that flicked,
    /// then rested a second before lifting, lifts at zero velocity (as a pan recognizer reports).
    @Test(arguments: [(Int64(13), "transition.finishing"), (18, "transition.finishing"), (19, "transition.cancelling")])
    func endUsesTheLastVelocityOnlyWhileFresh(endFrame: Int64, decided: String) {
        var s = F.when(beginPop(), .update(percent: 0.1, velocity: nil), at: 11).state
        s = F.when(s, .update(percent: 0.45, velocity: nil), at: 12).state
        #expect(s.transition?.velocity == 21)
        // 0.1 s at 60 Hz is 6 frames: up to frame 18 the fling counts.
        let end = F.when(s, .end(percent: nil, velocity: nil), at: endFrame)
        #expect(end.events.map(\.type) == [decided])
    }

    /// `end` with a percent and no velocity after `begin`: the fit needs two instants within 100 ms;
    /// with fewer the finger is taken as still (velocity 0, as Android's VelocityTracker does past its
    /// horizon), and the percent alone decides.
    @Test(
        arguments: [
            (Int64(10), 0.3, "transition.cancelling"),  // begin's own frame: one instant, no motion measured
            (10, 0.6, "transition.finishing"),
            (13, 0.3, "transition.finishing"),  // 0.3 in 3 frames: 6 a second, a fling
            (22, 0.3, "transition.cancelling"),  // 12 frames (0.2 s) after begin: outside the window
        ] as [(Int64, Double, String)])
    func endRightAfterBeginDecidesByWhatWasMeasured(endFrame: Int64, percent: Double, decided: String) {
        let end = F.when(beginPop(), .end(percent: percent, velocity: nil), at: endFrame)
        #expect(end.events.map(\.type) == ["interaction.updated", decided])
    }

    @Test func noUpdateForTheTimeoutCancelsWithReasonTimeout() {
        let s = F.when(beginPop(), .update(percent: 0.5, velocity: nil), at: 20).state
        let due: Int64 = 20 + 600  // 10 s at 60 Hz
        #expect(Navigator.advance(s, toFrame: due - 1) == [])
        let events = Navigator.advance(s, toFrame: due + 1000)
        let end = due + FrameClock.wholeFrames(0.5 * 0.35 * 60)
        #expect(
            events == [
                F.event(
                    .cancelling(
                        transition: 2, fraction: 0.5, completionSpeed: 1, completionCurve: .easeInOut, reason: .timeout),
                    at: due),
                F.event(.cancelled(transition: 2, reason: .timeout), at: end),
            ])
        #expect(events.reduce(s, Navigator.evolve).stack == twoDeep.stack)
    }

    @Test func recoveryCancelsInteractiveAndLeavesAnimatingToTheClock() {
        let interactive = beginPop()
        #expect(
            Navigator.recover(interactive, atFrame: 500) == [
                F.event(.cancelled(transition: 2, reason: .recovery), at: 500)
            ])
        let animating = F.when(twoDeep, .pop(.standard), at: 10).state
        #expect(Navigator.recover(animating, atFrame: 500) == [])
        #expect(
            Navigator.advance(animating, toFrame: 500) == [F.event(.completed(transition: 2), at: 10 + F.defaultFrames)]
        )
    }

    @Test(arguments: [
        // (percent, velocity, threshold, impact, fling, expected)
        (0.6, 0.0, 0.5, 0.3, 1.0, EndRule.Decision.finish),
        (0.4, 0.0, 0.5, 0.3, 1.0, .cancel),
        (0.4, 0.5, 0.5, 0.3, 1.0, .finish),  // 0.4 + 0.15 > 0.5
        (0.1, 1.0, 0.5, 0.3, 1.0, .finish),  // fling
        (0.9, -2.0, 0.5, 0.3, 1.0, .cancel),  // thrown back
        (0.5, 0.0, 0.5, 0.3, 1.0, .cancel),  // strictly greater
        (0.3, 0.01, 0.5, 0.0, 0.001, .finish),  // the seeds' rule: velocity > 0
        (0.3, 0.0, 0.5, 0.0, 0.001, .cancel),
    ])
    func endRuleTable(
        p: Double, v: Double, threshold: Double, impact: Double, fling: Double, expected: EndRule.Decision
    ) {
        #expect(
            EndRule(threshold: threshold, velocityImpact: impact, flingVelocity: fling).decide(percent: p, velocity: v)
                == expected)
    }

    @Test func endDecidesByTheNavigatorsRuleAndAppliesThePercentFirst() {
        let s = beginPop()
        let fin = F.when(s, .end(percent: 0.7, velocity: 0), at: 12)
        #expect(fin.events.map(\.type) == ["interaction.updated", "transition.finishing"])
        let can = F.when(s, .end(percent: 0.2, velocity: 0), at: 12)
        #expect(can.events.map(\.type) == ["interaction.updated", "transition.cancelling"])
    }
}
