/// The Decider that runs navigators: `decide`, `evolve`, `advance`, `recover` and `ticks`.
///
/// Pure functions of state, command and frame; the daemon, the store and replay run them and know
/// nothing of navigation. The state of a navigator is `events.reduce(initial, evolve)`.
public enum Navigator {
    public static func initialState(name: String, clock: FrameClock) -> NavigatorState {
        NavigatorState(name: name, clock: clock)
    }

    /// Applies one event. Total: an event that does not fit the state (which `decide` never produces)
    /// still yields a state, with the revision counted, so a fold never traps.
    public static func evolve(_ state: NavigatorState, _ event: NavigationEvent) -> NavigatorState {
        var s = state
        s.revision += 1
        s.frame = max(s.frame, event.frame)
        let frame = event.frame
        switch event.kind {
        case .created(let root, let config, let rate):
            s.status = .open
            s.config = config
            if let clock = try? FrameClock(rate: rate) { s.clock = clock }
            s.stack = [root]
            s.modals = []
            s.nextScreenNumber = max(s.nextScreenNumber, Self.screenNumber(root.id) + 1)
        case .closed:
            s.status = .closed
            s.transition = nil
            s.queue = []
        case .started(let e):
            if !s.queue.isEmpty { s.queue.removeFirst() }
            let duration = e.animated ? e.animator.effectiveDuration : 0
            s.transition = Transition(
                id: e.transition, operation: e.operation, from: e.from, to: e.to, popped: e.popped,
                targetStack: e.stack, targetModals: e.modals, animator: e.animator, animated: e.animated,
                interactive: e.interactive, owner: e.owner, phase: e.interactive ? .interactive : .animating,
                startFrame: frame,
                segment: Segment(
                    startFrame: frame, startFraction: 0, endFraction: 1, frames: s.clock.frames(forSeconds: duration),
                    curve: .linear),
                percent: 0, velocity: 0, lastInteractionFrame: frame, cancelReason: .requested)
            s.nextScreenNumber = max(s.nextScreenNumber, e.nextScreen)
            s.nextTransitionID = max(s.nextTransitionID, e.transition + 1)
        case .updated(_, let percent, let velocity):
            if var t = s.transition {
                t.percent = percent
                t.velocity = velocity
                t.lastInteractionFrame = frame
                s.transition = t
            }
        case .interrupted(_, let fraction, let owner):
            if var t = s.transition {
                t.phase = .interactive
                t.interactive = true
                t.percent = fraction
                t.velocity = 0
                t.lastInteractionFrame = frame
                if let owner { t.owner = owner }
                s.transition = t
            }
        case .finishing(_, let fraction, _, let speed, let curve):
            if var t = s.transition {
                let seconds = (1 - fraction) * t.duration / speed
                t.phase = .finishing
                t.segment = Segment(
                    startFrame: frame, startFraction: fraction, endFraction: 1,
                    frames: s.clock.frames(forSeconds: seconds), curve: curve)
                s.transition = t
            }
        case .cancelling(_, let fraction, let speed, let curve, let reason):
            if var t = s.transition {
                let seconds = fraction * t.duration / speed
                t.phase = .cancelling
                t.cancelReason = reason
                t.segment = Segment(
                    startFrame: frame, startFraction: fraction, endFraction: 0,
                    frames: s.clock.frames(forSeconds: seconds), curve: curve)
                s.transition = t
            }
        case .completed:
            if let t = s.transition {
                s.stack = t.targetStack
                s.modals = t.targetModals
                s.recordEnd(EndedTransition(transition: t, endFrame: frame, phase: .completed))
            }
            s.transition = nil
        case .cancelled:
            if let t = s.transition { s.recordEnd(EndedTransition(transition: t, endFrame: frame, phase: .cancelled)) }
            s.transition = nil
        case .queued(let request, _):
            s.queue.append(QueuedCommand(command: request, requestID: event.command))
        case .dropped:
            if !s.queue.isEmpty { s.queue.removeFirst() }
        }
        return s
    }

    /// Folds a log (in order) from the initial state.
    public static func fold(name: String, clock: FrameClock, _ events: some Sequence<NavigationEvent>) -> NavigatorState
    {
        events.reduce(initialState(name: name, clock: clock), evolve)
    }

    /// `s12` → 12; anything else → 0 (ids are only ever made by `decide`).
    static func screenNumber(_ id: String) -> Int {
        guard id.hasPrefix("s"), let n = Int(id.dropFirst()) else { return 0 }
        return n
    }
}

extension NavigatorState {
    mutating func recordEnd(_ end: EndedTransition) {
        if ended.last?.endFrame != end.endFrame { ended.removeAll(keepingCapacity: true) }
        ended.append(end)
    }

    /// The frame after the latest end, when that end is in the current frame: queued commands start
    /// there so every transition keeps a frame of its own for its final tick.
    var queueStartFrame: Int64 { ended.last?.endFrame == frame ? frame + 1 : frame }
}

extension Transition {
    /// The animator's duration as this transition runs it: 0 when not animated.
    public var duration: Double { animated ? animator.effectiveDuration : 0 }
}
