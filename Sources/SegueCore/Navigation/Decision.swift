/// One decision in progress: the state, frame and envelope shared by every rule.
struct Decision {
    let state: NavigatorState
    let frame: Int64
    let envelope: CommandEnvelope
    /// Set when the queue's head is being started: it must not be queued again behind the rest.
    var fromQueue = false
    /// The id the queue's head took when it was queued, which its transition starts with.
    var queuedTransition: Int? = nil
    var name: String { state.name }

    func event(_ kind: NavigationEvent.Kind) -> NavigationEvent {
        NavigationEvent(frame: frame, command: envelope.requestID, kind: kind)
    }

    mutating func decide(_ command: NavigationCommand) throws(CoreError) -> [NavigationEvent] {
        if command.isQueueable, !fromQueue, state.hasTransition || !state.queue.isEmpty {
            if let reversal = try reversal(by: command) { return [reversal] }
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
            let v = velocity ?? estimatedVelocity(t, percent: percent, time: geometry.time)
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
        case .end(let percent, let velocity, let animator, let geometry):
            return try end(percent: percent, velocity: velocity, animator: animator, geometry: geometry)
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
}
