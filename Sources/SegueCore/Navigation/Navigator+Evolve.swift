/// The Decider that runs navigators: `decide`, `evolve`, `advance`, `recover` and `ticks`.
///
/// Pure functions of state, command and frame; the daemon, the store and replay run them and know
/// nothing of navigation. The state of a navigator is `events.reduce(initial, evolve)`.
package enum Navigator {
    package static func initialState(name: String, clock: FrameClock) -> NavigatorState {
        NavigatorState(name: name, clock: clock)
    }

    /// Applies one event. Total: an event that does not fit the state (which `decide` never produces)
    /// still yields a state, with the revision counted, so a fold never traps.
    package static func evolve(_ state: NavigatorState, _ event: NavigationEvent) -> NavigatorState {
        var s = state
        apply(event, to: &s)
        return s
    }

    /// `evolve` in place: a fold that owns its state changes it with no copy of the state per event,
    /// and its arrays (`ended`, `queue`) without copy-on-write when nothing else holds them.
    package static func apply(_ event: NavigationEvent, to s: inout NavigatorState) {
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
            s.start(e, frame: frame)
        case .updated, .interrupted, .finishing, .cancelling, .reversed, .paused, .seeked, .resumed:
            s.transition = s.transition.map { $0.evolved(by: event.kind, frame: frame, clock: s.clock) }
        case .completed:
            if let t = s.transitionStorage {
                s.stack = t.value.targetStack
                s.modals = t.value.targetModals
                s.recordEnd(EndedTransition(t, endFrame: frame, phase: .completed))
            }
            s.transition = nil
        case .cancelled:
            if let t = s.transitionStorage { s.recordEnd(EndedTransition(t, endFrame: frame, phase: .cancelled)) }
            s.transition = nil
        case .queued(let request, _, let transition):
            s.queue.append(QueuedCommand(command: request, requestID: event.command, transition: transition))
            if let transition { s.nextTransitionID = max(s.nextTransitionID, transition + 1) }
        case .dropped:
            if !s.queue.isEmpty { s.queue.removeFirst() }
        }
    }

    /// Folds a log (in order) from the initial state.
    package static func fold(name: String, clock: FrameClock, _ events: some Sequence<NavigationEvent>)
        -> NavigatorState
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
    /// `transition.started`: the transition in flight, and the queue's head it came from, if any.
    mutating func start(_ e: NavigationEvent.Started, frame: Int64) {
        if !queue.isEmpty { queue.removeFirst() }
        let duration = e.animated ? e.animator.effectiveDuration : 0
        transition = Transition(
            id: e.transition, operation: e.operation, from: e.from, to: e.to, popped: e.popped,
            targetStack: e.stack, targetModals: e.modals, animator: e.animator, animated: e.animated,
            interactive: e.interactive, owner: e.owner, phase: e.interactive ? .interactive : .animating,
            startFrame: frame,
            segment: Segment(
                startFrame: frame, startFraction: 0, endFraction: 1, frames: clock.frames(forSeconds: duration),
                curve: .linear),
            percent: 0, velocity: 0, lastInteractionFrame: frame, cancelReason: .requested, touch: e.geometry.touch,
            swipeEdge: e.geometry.edge,
            samples: e.interactive ? [GestureSample(frame: frame, clientTime: e.geometry.time, percent: 0)] : [])
        nextScreenNumber = max(nextScreenNumber, e.nextScreen)
        nextTransitionID = max(nextTransitionID, e.transition + 1)
    }

    mutating func recordEnd(_ end: EndedTransition) {
        if ended.last?.endFrame != end.endFrame { ended.removeAll(keepingCapacity: true) }
        ended.append(end)
    }

    /// The frame after the latest end, when that end is in the current frame: queued commands start
    /// there so every transition keeps a frame of its own for its final tick.
    var queueStartFrame: Int64 { ended.last?.endFrame == frame ? frame + 1 : frame }
}

extension Transition {
    /// The transition after a gesture's or a completion's event: `update`, an interrupt, `finish`,
    /// `cancel` (and the end rule's decision, which is one of the two).
    func evolved(by kind: NavigationEvent.Kind, frame: Int64, clock: FrameClock) -> Transition {
        var t = self
        switch kind {
        case .updated(_, let percent, let velocity, let geometry, let estimated):
            t.percent = percent
            t.velocity = velocity
            t.velocityGiven = !estimated
            t.lastInteractionFrame = frame
            t.follow(geometry)
            t.record(GestureSample(frame: frame, clientTime: geometry.time, percent: percent))
        case .interrupted(_, let fraction, let owner, let geometry):
            t.follow(geometry)
            t.samples = [GestureSample(frame: frame, clientTime: geometry.time, percent: fraction)]
            t.velocityGiven = false
            t.phase = .interactive
            t.pausedFrom = nil
            t.interactive = true
            t.percent = fraction
            t.velocity = 0
            t.lastInteractionFrame = frame
            // A new gesture: without an owner, any client may drive it, whoever owned the transition.
            t.owner = owner
        case .finishing(_, let fraction, _, let speed, let curve):
            t.phase = .finishing
            t.pausedFrom = nil
            let seconds = curve.intrinsicDuration ?? (1 - fraction) * duration / speed
            t.segment = Segment(
                startFrame: frame, startFraction: fraction, endFraction: 1, frames: clock.frames(forSeconds: seconds),
                curve: curve, seconds: curve.isSpring ? seconds : nil)
        case .cancelling(_, let fraction, let speed, let curve, let reason, _):
            t.phase = .cancelling
            t.pausedFrom = nil
            t.cancelReason = reason
            let seconds = curve.intrinsicDuration ?? fraction * duration / speed
            t.segment = Segment(
                startFrame: frame, startFraction: fraction, endFraction: 0, frames: clock.frames(forSeconds: seconds),
                curve: curve, seconds: curve.isSpring ? seconds : nil)
        case .reversed, .paused, .seeked, .resumed:
            t.scrub(by: kind, frame: frame, clock: clock)
        default:
            break
        }
        return t
    }

    /// Keeps the last touch and edge a client reported: a step that leaves one out has not moved it.
    mutating func follow(_ geometry: GestureGeometry) {
        if let touch = geometry.touch { self.touch = touch }
        if let edge = geometry.edge { swipeEdge = edge }
    }

    /// Adds a point to the gesture's path, keeping the last `VelocityEstimator.capacity`.
    /// Two points of one frame without client times are one instant: the later position stands.
    mutating func record(_ sample: GestureSample) {
        if sample.clientTime == nil, let last = samples.last, last.clientTime == nil, last.frame == sample.frame {
            samples.removeLast()
        }
        if samples.count >= VelocityEstimator.capacity {
            samples.removeFirst(samples.count - VelocityEstimator.capacity + 1)
        }
        samples.append(sample)
    }

    /// The animator's duration as this transition runs it: 0 when not animated.
    package var duration: Double { animated ? animator.effectiveDuration : 0 }
}
