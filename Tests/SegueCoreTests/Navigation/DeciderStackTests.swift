import Testing

@testable import SegueCore

/// Given events, when a stack command, then the whole event list and the whole state.
@Suite struct DeciderStackTests {
    typealias F = Fixture
    let home = F.screen(1, "Home")
    let list = F.screen(2, "List")
    let detail = F.screen(3, "Detail")

    @Test func createMakesTheRootScreenS1() {
        let r = F.when(
            F.given([]), .create(root: ScreenSpec(name: "Home"), config: NavigatorConfig()), at: 5,
            .init(requestID: "c1"))
        #expect(r.error == nil)
        #expect(
            r.events == [
                NavigationEvent(
                    frame: 5, command: "c1", kind: .created(root: home, config: NavigatorConfig(), frameRate: 60))
            ])
        var expected = NavigatorState(name: "main", clock: F.clock)
        expected.status = .open
        expected.revision = 1
        expected.frame = 5
        expected.stack = [home]
        expected.nextScreenNumber = 2
        #expect(r.state == expected)
    }

    @Test func animatedPushStartsThenCompletesOnSchedule() {
        let given = F.given([F.created()])
        let r = F.when(given, .push(ScreenSpec(name: "List"), .standard), at: 10, .init(requestID: "p1"))
        let started = F.started(1, .push, from: home, to: list, stack: [home, list], next: 3, frame: 10, command: "p1")
        #expect(r.events == [started])
        #expect(r.state.stack == [home])
        #expect(r.state.transition?.phase == .animating)
        #expect(r.state.revision == 2)
        let end = 10 + F.defaultFrames
        #expect(Navigator.advance(r.state, toFrame: end - 1) == [])
        let done = Navigator.advance(r.state, toFrame: end + 5)
        #expect(done == [F.event(.completed(transition: 1), at: end)])
        let after = done.reduce(r.state, Navigator.evolve)
        #expect(after.stack == [home, list])
        #expect(after.transition == nil)
        #expect(after.revision == 3)
        #expect(after.ended.last?.endFrame == end)
    }

    @Test func nonAnimatedPushStartsAndCompletesInOneFrame() {
        let r = F.when(
            F.given([F.created()]), .push(ScreenSpec(name: "List"), TransitionOptions(animated: false)), at: 7)
        #expect(
            r.events == [
                F.started(1, .push, from: home, to: list, stack: [home, list], animated: false, next: 3, frame: 7),
                F.event(.completed(transition: 1), at: 7),
            ])
        #expect(r.state.stack == [home, list])
        #expect(r.state.transition == nil)
        #expect(Navigator.ticks(r.state, frame: 7).map(\.final) == [true])
        #expect(Navigator.ticks(r.state, frame: 7).first?.fraction == 1)
    }

    @Test func doublePushWithTheSameExpectConflicts() {
        let given = F.given([F.created()])
        let first = F.when(
            given, .push(ScreenSpec(name: "List"), TransitionOptions(animated: false)), at: 1, .init(expect: 1))
        #expect(first.error == nil)
        let second = F.when(
            first.state, .push(ScreenSpec(name: "List"), TransitionOptions(animated: false)), at: 2, .init(expect: 1))
        #expect(second.error?.code == .conflict)
        #expect(second.error?.details["revision"] == 3)
        #expect(second.events == [])
        #expect(second.state == first.state)
    }

    @Test func pushWhileAnimatingIsBusyUnderReject() {
        let s = F.when(F.given([F.created()]), .push(ScreenSpec(name: "List"), .standard), at: 1).state
        let r = F.when(s, .push(ScreenSpec(name: "Detail"), .standard), at: 3)
        #expect(r.error?.code == .busy)
        #expect(r.error?.message.contains("transition 1") == true)
        #expect(r.state == s)
    }

    @Test func pushWhileAnimatingIsQueuedUnderQueueAndStartsTheFrameAfterTheEnd() {
        let config = F.config { $0.busy = .queue }
        let s = F.when(F.given([F.created(config)]), .push(ScreenSpec(name: "List"), .standard), at: 1).state
        let r = F.when(s, .push(ScreenSpec(name: "Detail"), .standard), at: 3, .init(requestID: "q"))
        let queued = NavigationCommand.push(ScreenSpec(name: "Detail"), .standard)
        #expect(r.events == [F.event(.queued(request: queued, position: 1, transition: 2), at: 3, command: "q")])
        #expect(r.state.queue == [QueuedCommand(command: queued, requestID: "q", transition: 2)])
        #expect(r.state.nextTransitionID == 3)
        let end = 1 + F.defaultFrames
        let clock = Navigator.advance(r.state, toFrame: end + 1)
        #expect(
            clock == [
                F.event(.completed(transition: 1), at: end),
                F.started(
                    2, .push, from: list, to: detail, stack: [home, list, detail], next: 4, frame: end + 1, command: "q"
                ),
            ])
        let after = clock.reduce(r.state, Navigator.evolve)
        #expect(after.queue == [])
        #expect(after.transition?.id == 2)
    }

    @Test func aFullQueueIsBusy() {
        let config = F.config {
            $0.busy = .queue
            $0.queueLimit = 1
        }
        var s = F.when(F.given([F.created(config)]), .push(ScreenSpec(name: "List"), .standard), at: 1).state
        s = F.when(s, .pop(.standard), at: 2).state
        let r = F.when(s, .pop(.standard), at: 3)
        #expect(r.error?.code == .busy)
        #expect(r.error?.message.contains("queue is full") == true)
    }

    @Test func aQueuedCommandThatNoLongerFitsIsDropped() {
        let config = F.config { $0.busy = .queue }
        var s = F.when(F.given([F.created(config)]), .push(ScreenSpec(name: "List"), .standard), at: 1).state
        s = F.when(s, .pop(.standard), at: 2, .init(requestID: "a")).state
        s = F.when(s, .pop(.standard), at: 3, .init(requestID: "b")).state
        let end = 1 + F.defaultFrames
        let events = Navigator.advance(s, toFrame: end + 100)
        let types = events.map(\.type)
        #expect(types == ["transition.completed", "transition.started", "transition.completed", "transition.dropped"])
        guard case .dropped(_, let code, _, let transition) = events.last?.kind else {
            Issue.record("no drop")
            return
        }
        #expect(code == .cannotPopRoot)
        // Each queued command took its id when queued: `a` started as 2, `b` is dropped as 3.
        #expect(events.map { $0.data["transition"] } == [1, 2, 2, 3])
        #expect(transition == 3)
        #expect(events.last?.command == "b")
        #expect(events.reduce(s, Navigator.evolve).queue.isEmpty)
    }

    @Test(arguments: [
        (NavigationCommand.pop(.standard), ErrorCode.cannotPopRoot),
        (.popToRoot(.standard), .cannotPopRoot),
        (.begin(.pop, animator: nil), .cannotPopRoot),
        (.popTo("Nowhere", .standard), .screenNotFound),
        (.dismiss(.standard), .screenNotFound),
        (.begin(.dismiss, animator: nil), .screenNotFound),
        (.update(percent: 0.5, velocity: nil), .noTransition),
        (.finish(velocity: nil, completionSpeed: 1, completionCurve: .easeInOut), .noTransition),
        (.cancel(completionSpeed: 1, completionCurve: .easeInOut), .noTransition),
        (.end(percent: nil, velocity: nil), .noTransition),
        (.begin(nil, animator: nil), .noTransition),
        (.create(root: ScreenSpec(name: "X"), config: NavigatorConfig()), .navigatorExists),
        (.setStack([.id("s9")], .standard), .screenNotFound),
        (.setStack([.id("s1"), .id("s1")], .standard), .invalidArgument),
    ])
    func rejectionsAtTheRoot(command: NavigationCommand, code: ErrorCode) {
        let given = F.given([F.created()])
        let r = F.when(given, command, at: 3)
        #expect(r.error?.code == code)
        #expect(r.events == [])
        #expect(r.state == given)
    }

    @Test func commandsOnAbsentAndClosedNavigators() {
        #expect(F.when(F.given([]), .pop(.standard), at: 1).error?.code == .unknownNavigator)
        let closed = F.given([F.created(), F.event(.closed, at: 2)])
        #expect(closed.isTerminal)
        #expect(F.when(closed, .pop(.standard), at: 3).error?.code == .navigatorClosed)
        #expect(
            F.when(closed, .create(root: ScreenSpec(name: "Home"), config: NavigatorConfig()), at: 3).error?.code
                == .navigatorExists)
    }

    @Test func depthPastMaxDepthIsTooLarge() {
        let s = F.given([F.created(F.config { $0.maxDepth = 1 })])
        #expect(F.when(s, .push(ScreenSpec(name: "List"), .standard), at: 1).error?.code == .tooLarge)
    }

    @Test func popToByIdAndByTopmostRouteName() {
        let log = F.log([
            (.push(ScreenSpec(name: "List"), TransitionOptions(animated: false)), 1),
            (.push(ScreenSpec(name: "List"), TransitionOptions(animated: false)), 2),
            (.push(ScreenSpec(name: "Detail"), TransitionOptions(animated: false)), 3),
        ])
        let s = F.given(log)
        #expect(s.stack.map(\.id) == ["s1", "s2", "s3", "s4"])
        let byName = F.when(s, .popTo("List", TransitionOptions(animated: false)), at: 4)
        #expect(byName.state.stack.map(\.id) == ["s1", "s2", "s3"])
        let byID = F.when(s, .popTo("s2", TransitionOptions(animated: false)), at: 4)
        #expect(byID.state.stack.map(\.id) == ["s1", "s2"])
        guard case .started(let e) = byID.events.first?.kind else {
            Issue.record("no start")
            return
        }
        #expect(e.popped.map(\.id) == ["s4", "s3"])
        #expect(F.when(s, .popTo("s4", .standard), at: 4).error?.code == .invalidArgument)
        // The top's route with none of it below names the top as its id does; a route nowhere, nothing.
        #expect(F.when(s, .popTo("Detail", .standard), at: 4).error?.code == .invalidArgument)
        #expect(F.when(s, .popTo("Settings", .standard), at: 4).error?.code == .screenNotFound)
        let root = F.when(s, .popToRoot(TransitionOptions(animated: false)), at: 4)
        #expect(root.state.stack.map(\.id) == ["s1"])
    }

    @Test func setStackFollowsUIKitsRule() {
        let s = F.given(F.log([(.push(ScreenSpec(name: "List"), TransitionOptions(animated: false)), 1)]))
        func op(_ refs: [ScreenRef]) -> (TransitionOperation, Bool)? {
            guard case .started(let e)? = F.when(s, .setStack(refs, .standard), at: 5).events.first?.kind else {
                return nil
            }
            return (e.operation, e.animated)
        }
        #expect(op([.idOrName("s1"), .idOrName("s2"), .idOrName("Detail")])! == (.push, true))
        #expect(op([.idOrName("s1")])! == (.pop, true))
        #expect(op([.new(ScreenSpec(name: "Intro")), .id("s2")])! == (.push, false))
        let replaced = F.when(
            s, .setStack([.new(ScreenSpec(name: "A")), .new(ScreenSpec(name: "B"))], .standard), at: 5)
        #expect(replaced.state.transition?.targetStack.map(\.id) == ["s3", "s4"])
    }

    /// The top unchanged, the screens below it changed or not: nothing moves, so the one (final)
    /// tick shows the top at rest, not leaving the place it also enters.
    @Test(arguments: [[ScreenRef.id("s1"), .id("s2")], [.new(ScreenSpec(name: "Intro")), .id("s2")]])
    func setStackWithTheSameTopDrawsItInPlace(_ refs: [ScreenRef]) throws {
        let s = F.given(F.log([(.push(ScreenSpec(name: "List"), TransitionOptions(animated: false)), 1)]))
        let r = F.when(s, .setStack(refs, .standard), at: 5)
        let tick = try #require(Navigator.ticks(r.state, frame: 5).first)
        #expect(tick.final && tick.fraction == 1)
        for view in [tick.views.from, tick.views.to] {
            #expect(view.x == 0 && view.y == 0 && view.alpha == 1 && view.scale == 1, "\(view)")
        }
    }

    @Test func cancelledSetStackRestoresTheStackExactly() {
        let s = F.given(F.log([(.push(ScreenSpec(name: "List"), TransitionOptions(animated: false)), 1)]))
        let started = F.when(s, .setStack([.new(ScreenSpec(name: "Other"))], .standard), at: 5)
        let cancelled = F.when(started.state, .cancel(completionSpeed: 1, completionCurve: .linear), at: 8)
        let end = Navigator.advance(cancelled.state, toFrame: 1000)
        let after = end.reduce(cancelled.state, Navigator.evolve)
        #expect(end.map(\.type) == ["transition.cancelled"])
        #expect(after.stack == s.stack)
        #expect(after.modals == s.modals)
        #expect(after.nextScreenNumber == 4)  // s3 was used by the cancelled stack and is never reused
    }

    @Test func presentAndDismissKeepThePresenterWhereItIs() {
        let s = F.given(
            F.log([
                (.push(ScreenSpec(name: "List"), TransitionOptions(animated: false)), 1),
                (.present(ScreenSpec(name: "Sheet"), TransitionOptions(animated: false)), 2),
            ]))
        #expect(s.stack.map(\.id) == ["s1", "s2"])
        #expect(s.modals.map(\.id) == ["s3"])
        #expect(s.top?.id == "s3")
        let d = F.when(s, .dismiss(TransitionOptions(animated: false)), at: 3)
        guard case .started(let e)? = d.events.first?.kind else {
            Issue.record("no start")
            return
        }
        #expect(e.from.id == "s3")
        #expect(e.to.id == "s2")
        #expect(d.state.stack.map(\.id) == ["s1", "s2"])
        #expect(d.state.modals == [])
    }

    @Test func closeIsTerminalAndRefusedWhileBusy() {
        let busy = F.when(F.given([F.created()]), .push(ScreenSpec(name: "List"), .standard), at: 1).state
        #expect(F.when(busy, .close, at: 2).error?.code == .busy)
        let r = F.when(F.given([F.created()]), .close, at: 2)
        #expect(r.events == [F.event(.closed, at: 2)])
        #expect(r.state.status == .closed)
    }

    @Test func animatorRulesAndOverridesChooseTheAnimator() {
        var config = NavigatorConfig()
        let fade = Animator(style: .fade, duration: 0.2, curve: .linear)
        config.animators.rules = [AnimatorRule(operation: .push, from: "Home", to: "List", animator: fade)]
        let s = F.given([F.created(config)])
        guard case .started(let e)? = F.when(s, .push(ScreenSpec(name: "List"), .standard), at: 1).events.first?.kind,
            case .started(let other)? = F.when(s, .push(ScreenSpec(name: "Detail"), .standard), at: 1).events.first?
                .kind,
            case .started(let overridden)? = F.when(
                s, .push(ScreenSpec(name: "List"), TransitionOptions(animator: ["duration": 1.5])), at: 1
            ).events.first?.kind
        else {
            Issue.record("no start")
            return
        }
        #expect(e.animator == fade)
        #expect(other.animator == .default)
        #expect(overridden.animator.duration == 1.5)
        #expect(overridden.animator.style == fade.style)
    }
}
