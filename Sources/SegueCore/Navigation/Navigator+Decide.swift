extension Navigator {
    /// Decides what a command does to a navigator at `frame`: the events to append, or a rejection.
    ///
    /// Precondition: `state` has been advanced to `frame` (`advance`), so nothing the clock decides at
    /// or before `frame` is pending. All events returned take effect at `frame`.
    package static func decide(
        _ command: NavigationCommand, _ envelope: CommandEnvelope = CommandEnvelope(), state: NavigatorState,
        frame: Int64
    ) throws(CoreError) -> [NavigationEvent] {
        try decideFolding(command, envelope, state: state, frame: frame).events
    }

    /// `decide`, plus the state its events fold to: the decider folds them anyway (to advance a
    /// zero-length segment), so a caller that applies them need not evolve each one again. `each`
    /// sees the state after every event, in order (the fleet digests each one).
    static func decideFolding(
        _ command: NavigationCommand, _ envelope: CommandEnvelope, state: NavigatorState, frame: Int64,
        each: (NavigatorState) -> Void = { _ in }
    ) throws(CoreError) -> (events: [NavigationEvent], state: NavigatorState) {
        let name = state.name
        switch state.status {
        case .absent:
            guard case .create(let root, let config) = command else {
                throw CoreError(
                    .unknownNavigator, "Navigator \(name) does not exist; create it first (cmd \"create\").")
            }
            // A navigator that does not exist yet is at revision 0: `create` with `expect` 0 means "only if new".
            if let expected = envelope.expect, expected != 0 {
                throw CoreError(
                    .conflict,
                    "Navigator \(name) does not exist yet (revision 0), not the expected \(expected); read its state and retry.",
                    details: ["revision": 0])
            }
            let screen = Screen(id: "s\(state.nextScreenNumber)", name: root.name, params: root.params)
            let created = NavigationEvent(
                frame: frame, command: envelope.requestID,
                kind: .created(root: screen, config: config, frameRate: state.clock.rate))
            var after = state
            apply(created, to: &after)
            each(after)
            return ([created], after)
        case .closed:
            if case .create = command {
                throw CoreError(
                    .navigatorExists, "Navigator \(name) was closed; names are never reused, so pick another name.")
            }
            throw CoreError(.navigatorClosed, "Navigator \(name) is closed; create a new navigator under another name.")
        case .open:
            break
        }
        if case .create = command {
            throw CoreError(
                .navigatorExists, "Navigator \(name) already exists; use it, or create one under another name.")
        }
        if let expected = envelope.expect, expected != state.revision {
            throw CoreError(
                .conflict,
                "Navigator \(name) is at revision \(state.revision), not the expected \(expected); read its state and retry.",
                details: ["revision": state.revision])
        }
        var decision = Decision(state: state, frame: frame, envelope: envelope)
        var events = try decision.decide(command)
        // One copy of the state, folded in place through every event.
        var after = state
        // Through the index: a bound `event` would be a copy of each (a started one is large).
        for index in events.indices {
            apply(events[index], to: &after)
            each(after)
        }
        // A segment of zero length (finish from 1, cancel from 0) ends in the frame it starts, so the
        // clock's events for this frame follow at once: the state a command leaves is always
        // advanced to its frame, and the tick for this frame sees the end.
        events += advance(&after, toFrame: frame, each: each)
        return (events, after)
    }
}

/// One decision in progress: the state, frame and envelope shared by every rule.
struct Decision {
    let state: NavigatorState
    let frame: Int64
    let envelope: CommandEnvelope
    /// Set when the queue's head is being started: it must not be queued again behind the rest.
    var fromQueue = false
    var name: String { state.name }

    func event(_ kind: NavigationEvent.Kind) -> NavigationEvent {
        NavigationEvent(frame: frame, command: envelope.requestID, kind: kind)
    }

    mutating func decide(_ command: NavigationCommand) throws(CoreError) -> [NavigationEvent] {
        if command.isQueueable, !fromQueue, state.hasTransition || !state.queue.isEmpty {
            if let reversal = reversal(by: command) { return [reversal] }
            return try queueOrReject(command)
        }
        switch command {
        case .create: preconditionFailure("create is decided before the navigator is open")
        case .close: return try close()
        case .push, .pop, .popTo, .popToRoot, .setStack, .present, .dismiss: return try navigate(command)
        case .begin(let interactive, let animator, let geometry):
            return try begin(interactive, animator: animator, geometry: geometry)
        case .update(let percent, let velocity, let geometry):
            let t = try gestureTransition("update")
            let v = velocity ?? estimatedVelocity(t, percent: percent)
            return [
                event(
                    .updated(
                        transition: t.id, percent: percent, velocity: v, geometry: geometry, estimated: velocity == nil)
                )
            ]
        case .finish(let velocity, var speed, var curve, let animator):
            let t = try gestureTransition("finish")
            if let animator {
                (speed, curve) = animator.completion(
                    from: t.percent, to: 1, velocity: velocity ?? releaseVelocity(t))
            }
            return [
                event(
                    .finishing(
                        transition: t.id, fraction: t.percent, velocity: velocity, completionSpeed: speed,
                        completionCurve: curve))
            ]
        case .cancel(let speed, let curve, let velocity, let animator):
            return try cancel(speed: speed, curve: curve, velocity: velocity, animator: animator)
        case .end(let percent, let velocity, let animator):
            return try end(percent: percent, velocity: velocity, animator: animator)
        case .pause: return try pause()
        case .seek(let fraction, let scrubsLinearly): return try seek(fraction, scrubsLinearly: scrubsLinearly)
        case .resume: return try resume()
        }
    }

    private func close() throws(CoreError) -> [NavigationEvent] {
        if let t = state.transition {
            throw CoreError(
                .busy,
                "Navigator \(name) has transition \(t.id) (\(t.operation.rawValue)) in flight; close it when it ends.")
        }
        if !state.queue.isEmpty {
            throw CoreError(
                .busy, "Navigator \(name) has \(state.queue.count) queued commands; close it when they have run.")
        }
        return [event(.closed)]
    }

    /// The commands that change the stack or the modals through a transition.
    private mutating func navigate(_ command: NavigationCommand) throws(CoreError) -> [NavigationEvent] {
        switch command {
        case .push(let spec, let options):
            try checkDepth(state.stack.count + state.modals.count + 1)
            var counter = state.nextScreenNumber
            let screen = makeScreen(spec, &counter)
            return try start(
                .push, from: state.stack.last!, to: screen, popped: [], stack: state.stack + [screen],
                modals: state.modals, options: options, nextScreen: counter)
        case .pop(let options):
            guard state.stack.count > 1 else { throw rootError("pop") }
            let stack = Array(state.stack.dropLast())
            return try start(
                .pop, from: state.stack.last!, to: stack.last!, popped: [state.stack.last!], stack: stack,
                modals: state.modals, options: options, nextScreen: state.nextScreenNumber)
        case .popTo(let target, let options):
            let index = try popTarget(target)
            let stack = Array(state.stack[...index])
            return try start(
                .pop, from: state.stack.last!, to: stack.last!, popped: state.stack[(index + 1)...].reversed(),
                stack: stack, modals: state.modals, options: options, nextScreen: state.nextScreenNumber)
        case .popToRoot(let options):
            guard state.stack.count > 1 else { throw rootError("popToRoot") }
            return try start(
                .pop, from: state.stack.last!, to: state.stack[0], popped: state.stack.dropFirst().reversed(),
                stack: [state.stack[0]], modals: state.modals, options: options,
                nextScreen: state.nextScreenNumber)
        case .setStack(let refs, let options):
            return try setStack(refs, options)
        case .present(let spec, let options):
            try checkDepth(state.stack.count + state.modals.count + 1)
            var counter = state.nextScreenNumber
            let screen = makeScreen(spec, &counter)
            return try start(
                .present, from: state.top!, to: screen, popped: [], stack: state.stack,
                modals: state.modals + [screen], options: options, nextScreen: counter)
        case .dismiss(let options):
            guard let modal = state.modals.last else { throw noModal() }
            let modals = Array(state.modals.dropLast())
            return try start(
                .dismiss, from: modal, to: modals.last ?? state.stack.last!, popped: [modal],
                stack: state.stack, modals: modals, options: options, nextScreen: state.nextScreenNumber)
        default:
            preconditionFailure("\(command) is not a navigation command")
        }
    }

    private func cancel(speed: Double, curve: TimingCurve?, velocity: Double?, animator: CompletionAnimator?)
        throws(CoreError) -> [NavigationEvent]
    {
        guard let t = state.transition else { throw noTransition("cancel") }
        switch t.phase {
        case .interactive, .animating, .finishing, .paused:
            // A gesture keeps its owner after `finish`: only the owner may still cancel it.
            try checkOwner(t, "cancel")
        default:
            throw CoreError(
                .notInteractive, "Transition \(t.id) on \(name) is already \(t.phase.rawValue); nothing to cancel.")
        }
        let fraction = t.fraction(at: frame)
        if state.config.retarget, t.phase != .interactive, curve == nil, animator == nil {
            return [reverse(t, completionSpeed: speed)]
        }
        var (speed, curve) = (speed, curve ?? .easeInOut)
        if let animator {
            // A clock-driven transition has no finger: it hands over the velocity the command names,
            // else the one it moves at.
            let handed = velocity ?? (t.phase == .interactive ? releaseVelocity(t) : motionVelocity(t))
            (speed, curve) = animator.completion(from: fraction, to: 0, velocity: handed)
        }
        return [
            event(
                .cancelling(
                    transition: t.id, fraction: fraction, completionSpeed: speed, completionCurve: curve,
                    reason: .requested, velocity: velocity))
        ]
    }

    // MARK: Rules shared by several commands

    private func queueOrReject(_ command: NavigationCommand) throws(CoreError) -> [NavigationEvent] {
        let what =
            state.transition.map { "transition \($0.id) (\($0.operation.rawValue), \($0.phase.rawValue))" }
            ?? "queued work"
        guard state.config.busy == .queue else {
            throw CoreError(
                .busy,
                "Navigator \(name) has \(what) in flight; retry when it ends, or create the navigator with busy \"queue\"."
            )
        }
        guard state.queue.count < state.config.queueLimit else {
            throw CoreError(
                .busy,
                "Navigator \(name)'s queue is full (\(state.config.queueLimit) commands behind \(what)); retry later.")
        }
        return [event(.queued(request: command, position: state.queue.count + 1))]
    }

    private func makeScreen(_ spec: ScreenSpec, _ counter: inout Int) -> Screen {
        defer { counter += 1 }
        return Screen(id: "s\(counter)", name: spec.name, params: spec.params)
    }

    private func checkDepth(_ depth: Int) throws(CoreError) {
        guard depth <= state.config.maxDepth else {
            throw CoreError(
                .tooLarge,
                "Navigator \(name) would hold \(depth) screens, past its maxDepth of \(state.config.maxDepth); pop first."
            )
        }
    }

    private func rootError(_ cmd: String) -> CoreError {
        CoreError(
            .cannotPopRoot,
            "Navigator \(name) is at its root screen \(state.stack[0].id) (\(state.stack[0].name)); \(cmd) needs a screen above the root."
        )
    }

    private func noModal() -> CoreError {
        CoreError(.screenNotFound, "Navigator \(name) has no presented screen to dismiss.")
    }

    private func noTransition(_ cmd: String) -> CoreError {
        CoreError(
            .noTransition, "Navigator \(name) has no transition in flight; \(cmd) applies to one started with begin.")
    }

    /// The index of `target` in the stack: an id, or the topmost screen of that route below the top.
    private func popTarget(_ target: String) throws(CoreError) -> Int {
        let top = state.stack.count - 1
        if let i = state.stack.firstIndex(where: { $0.id == target })
            ?? state.stack[..<top].lastIndex(where: { $0.name == target })
        {
            guard i < top else {
                throw CoreError(
                    .invalidArgument, "Screen \(target) is already the top of navigator \(name); nothing to pop.")
            }
            return i
        }
        throw CoreError(
            .screenNotFound,
            "Navigator \(name) has no screen with id or route \"\(target)\" below its top; see its state for the stack."
        )
    }

    func checkOwner(_ t: Transition, _ cmd: String) throws(CoreError) {
        if let owner = t.owner, envelope.owner != owner {
            throw CoreError(
                .notOwner, "Transition \(t.id) on \(name) is owned by \"\(owner)\"; \(cmd) must carry that owner.")
        }
    }

    /// The interactive transition a gesture command drives, after the owner check.
    func gestureTransition(_ cmd: String) throws(CoreError) -> Transition {
        guard let t = state.transition else { throw noTransition(cmd) }
        guard t.phase == .interactive else {
            throw CoreError(
                .notInteractive,
                "Transition \(t.id) on \(name) is \(t.phase.rawValue), not interactive; begin with no operation interrupts it."
            )
        }
        try checkOwner(t, cmd)
        return t
    }

    private func begin(_ interactive: InteractiveStart?, animator: JSON?, geometry: GestureGeometry) throws(CoreError)
        -> [NavigationEvent]
    {
        guard let interactive else {
            guard let t = state.transition else {
                throw CoreError(
                    .noTransition, "Navigator \(name) has nothing in flight to interrupt; give begin an operation.")
            }
            guard t.isClockDriven || t.phase == .paused else {
                throw CoreError(
                    .busy, "Transition \(t.id) on \(name) is already interactive; drive it with update/finish/cancel.")
            }
            return [
                event(
                    .interrupted(
                        transition: t.id, fraction: t.fraction(at: frame), owner: envelope.owner, geometry: geometry))
            ]
        }
        if let t = state.transition {
            throw CoreError(
                .busy,
                "Navigator \(name) has transition \(t.id) (\(t.operation.rawValue), \(t.phase.rawValue)) in flight; begin another when it ends."
            )
        }
        if !state.queue.isEmpty {
            throw CoreError(
                .busy, "Navigator \(name) has \(state.queue.count) queued commands; begin when they have run.")
        }
        let options = TransitionOptions(animated: true, animator: animator)
        var counter = state.nextScreenNumber
        switch interactive {
        case .pop:
            guard state.stack.count > 1 else { throw rootError("an interactive pop") }
            let stack = Array(state.stack.dropLast())
            return try start(
                .pop, from: state.stack.last!, to: stack.last!, popped: [state.stack.last!], stack: stack,
                modals: state.modals, options: options, nextScreen: counter, interactive: true, geometry: geometry)
        case .push(let spec):
            try checkDepth(state.stack.count + state.modals.count + 1)
            let screen = makeScreen(spec, &counter)
            return try start(
                .push, from: state.stack.last!, to: screen, popped: [], stack: state.stack + [screen],
                modals: state.modals, options: options, nextScreen: counter, interactive: true, geometry: geometry)
        case .present(let spec):
            try checkDepth(state.stack.count + state.modals.count + 1)
            let screen = makeScreen(spec, &counter)
            return try start(
                .present, from: state.top!, to: screen, popped: [], stack: state.stack,
                modals: state.modals + [screen], options: options, nextScreen: counter, interactive: true,
                geometry: geometry)
        case .dismiss:
            guard let modal = state.modals.last else { throw noModal() }
            let modals = Array(state.modals.dropLast())
            return try start(
                .dismiss, from: modal, to: modals.last ?? state.stack.last!, popped: [modal],
                stack: state.stack, modals: modals, options: options, nextScreen: counter, interactive: true,
                geometry: geometry)
        }
    }

    /// UIKit's `setViewControllers(_:animated:)` rule: push if the new top is new, pop if it was lower
    /// on the stack, no animation if the top is unchanged.
    private func setStack(_ refs: [ScreenRef], _ options: TransitionOptions) throws(CoreError) -> [NavigationEvent] {
        try checkDepth(refs.count + state.modals.count)
        var counter = state.nextScreenNumber
        var seen: Set<String> = []
        var stack: [Screen] = []
        for (i, ref) in refs.enumerated() {
            let existing: Screen?
            switch ref {
            case .id(let id):
                guard let s = state.stack.first(where: { $0.id == id }) else {
                    throw CoreError(
                        .screenNotFound, "screens[\(i)]: navigator \(name) has no screen \(id) on its stack.")
                }
                existing = s
            case .idOrName(let s):
                existing = state.stack.first(where: { $0.id == s })
                if existing == nil { stack.append(makeScreen(ScreenSpec(name: s), &counter)) }
            case .new(let spec):
                existing = nil
                stack.append(makeScreen(spec, &counter))
            }
            if let existing {
                guard seen.insert(existing.id).inserted else {
                    throw CoreError(
                        .invalidArgument,
                        "screens[\(i)]: screen \(existing.id) appears twice; a screen stands on the stack once.")
                }
                stack.append(existing)
            }
        }
        let oldTop = state.stack.last!
        let newTop = stack.last!
        let keptIDs = Set(stack.map(\.id))
        let popped = state.stack.filter { !keptIDs.contains($0.id) }.reversed()
        let operation: TransitionOperation
        var opts = options
        if newTop.id == oldTop.id {
            operation = stack.count >= state.stack.count ? .push : .pop
            opts.animated = false
        } else if state.stack.contains(where: { $0.id == newTop.id }) {
            operation = .pop
        } else {
            operation = .push
        }
        return try start(
            operation, from: oldTop, to: newTop, popped: Array(popped), stack: stack,
            modals: state.modals, options: opts, nextScreen: counter)
    }

    /// The events that start a transition: `started`, and `completed` in the same frame when not animated.
    private func start(
        _ operation: TransitionOperation, from: Screen, to: Screen, popped: [Screen], stack: [Screen], modals: [Screen],
        options: TransitionOptions, nextScreen: Int, interactive: Bool = false, geometry: GestureGeometry = .none
    ) throws(CoreError) -> [NavigationEvent] {
        var animator = state.config.animators.animator(for: operation, from: from.name, to: to.name)
        if let override = options.animator { animator = try Animator(json: override, base: animator) }
        // A swipe's edge says where the views go, over a rule's or a preset's edge; an `edge` the
        // command's animator names outright still wins.
        if let edge = geometry.edge?.animatorEdge(for: operation), options.animator?["edge"] == nil {
            animator.edge = edge
        }
        let id = state.nextTransitionID
        let animated = options.animated || interactive
        let endsAtOnce = !interactive && (!animated || animator.effectiveDuration <= 0)
        // `started` is moved into its event, and the list made at its final size.
        let started = NavigationEvent.Started(
            transition: id, operation: operation, from: from, to: to, popped: popped, stack: stack, modals: modals,
            animator: animator, animated: animated, interactive: interactive,
            owner: interactive ? envelope.owner : nil, nextScreen: nextScreen, geometry: geometry)
        guard endsAtOnce else { return [event(.started(started))] }
        return [event(.started(started)), event(.completed(transition: id))]
    }
}
