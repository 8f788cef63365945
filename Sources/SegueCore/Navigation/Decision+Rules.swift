/// The rules several commands share.
extension Decision {
    func queueOrReject(_ command: NavigationCommand) throws(CoreError) -> [NavigationEvent] {
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
                "Navigator \(name)'s queue is full (\(state.config.queueLimit.counted("command")) behind \(what)); retry later."
            )
        }
        // The id is taken now, so every transition event names it, `queued` and `dropped` included.
        return [event(.queued(request: command, position: state.queue.count + 1, transition: state.nextTransitionID))]
    }

    func makeScreen(_ spec: ScreenSpec, _ counter: inout Int) -> Screen {
        defer { counter += 1 }
        return Screen(id: "s\(counter)", name: spec.name, params: spec.params)
    }

    func checkDepth(_ depth: Int) throws(CoreError) {
        guard depth <= state.config.maxDepth else {
            throw CoreError(
                .tooLarge,
                "Navigator \(name) would hold \(depth) screens, past its maxDepth of \(state.config.maxDepth); pop first."
            )
        }
    }

    func rootError(_ cmd: String) -> CoreError {
        CoreError(
            .cannotPopRoot,
            "Navigator \(name) is at its root screen \(state.stack[0].id) (\(state.stack[0].name)); \(cmd) needs a screen above the root."
        )
    }

    func noModal() -> CoreError {
        CoreError(.screenNotFound, "Navigator \(name) has no presented screen to dismiss.")
    }

    func noTransition(_ cmd: String) -> CoreError {
        let applies =
            cmd == "cancel" ? "a transition in flight, animated or started with begin" : "one started with begin"
        return CoreError(.noTransition, "Navigator \(name) has no transition in flight; \(cmd) applies to \(applies).")
    }

    /// The index of `target` in the stack: an id, or the topmost screen of that route below the top.
    func popTarget(_ target: String) throws(CoreError) -> Int {
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
        // The top's own route, and no screen of it below: the top itself, as its id would be.
        if state.stack[top].name == target {
            throw CoreError(
                .invalidArgument,
                "Screen \(state.stack[top].id) (route \(target)) is already the top of navigator \(name), and no "
                    + "screen of that route is below it; nothing to pop.")
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
                "Transition \(t.id) on \(name) is \(notInteractiveBecause(t)); begin with no operation interrupts it.")
        }
        try checkOwner(t, cmd)
        return t
    }

    /// What the transition is doing instead, and why when the daemon ended the gesture itself: a
    /// client that never cancelled must not be left to guess.
    private func notInteractiveBecause(_ t: Transition) -> String {
        guard t.phase == .cancelling else { return "\(t.phase.rawValue), not interactive" }
        switch t.cancelReason {
        case .timeout:
            return "cancelling, not interactive: it was cancelled after no update for "
                + "\(JSON.messageText(state.config.interactionTimeout)) s (the navigator's interactionTimeout)"
        case .recovery: return "cancelling, not interactive: segued restarted, which cancels gestures"
        case .requested: return "cancelling, not interactive"
        }
    }

    func begin(_ interactive: InteractiveStart?, animator: JSON?, geometry: GestureGeometry) throws(CoreError)
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
    /// on the stack, no animation if the top is unchanged: style `none`, so the one tick draws the top
    /// in place once, not as a screen leaving itself.
    func setStack(_ refs: [ScreenRef], _ options: TransitionOptions) throws(CoreError) -> [NavigationEvent] {
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
            opts.animator = ["style": "none"]
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
    func start(
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
        // A spring that settles in its own time runs for that time, whatever duration a rule or the
        // default gave: the event says how long the transition runs.
        if let settling = animator.curve.intrinsicDuration, settling > 0 { animator.duration = settling }
        let id = queuedTransition ?? state.nextTransitionID
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
