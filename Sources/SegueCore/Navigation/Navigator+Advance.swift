extension Navigator {
    /// What the clock decides up to and including `frame`: completions and cancellations of
    /// clock-driven segments, interaction timeouts, and queued commands starting.
    ///
    /// Events come back in frame order, each at the frame it falls due (not at `frame`), so a daemon
    /// that runs late and a replay both log the same frames.
    package static func advance(_ state: NavigatorState, toFrame frame: Int64) -> [NavigationEvent] {
        var s = state
        return advance(&s, toFrame: frame)
    }

    /// `advance`, leaving `s` folded through what it decided and handing `each` the state after
    /// every event (`decideFolding`).
    static func advance(
        _ s: inout NavigatorState, toFrame frame: Int64, each: (NavigatorState) -> Void = { _ in }
    ) -> [NavigationEvent] {
        var events: [NavigationEvent] = []
        func apply(_ e: NavigationEvent) {
            events.append(e)
            Navigator.apply(e, to: &s)
            each(s)
        }
        while s.status == .open {
            if let t = s.transition {
                if t.isClockDriven {
                    let due = max(t.segment.endFrame, s.frame)
                    guard due <= frame else { break }
                    let kind: NavigationEvent.Kind =
                        t.phase == .cancelling
                        ? .cancelled(transition: t.id, reason: t.cancelReason) : .completed(transition: t.id)
                    apply(NavigationEvent(frame: due, command: nil, kind: kind))
                    continue
                }
                let timeout = FrameClock.wholeFrames(s.clock.frames(forSeconds: s.config.interactionTimeout))
                let due = max(t.lastInteractionFrame + timeout, s.frame)
                guard due <= frame else { break }
                apply(
                    NavigationEvent(
                        frame: due, command: nil,
                        kind: .cancelling(
                            transition: t.id, fraction: t.percent, completionSpeed: 1, completionCurve: .easeInOut,
                            reason: .timeout)))
                continue
            }
            guard let next = s.queue.first else { break }
            // A queued command starts the frame after the previous transition ended, so each
            // transition keeps a frame of its own for its final tick.
            let due = s.queueStartFrame
            guard due <= frame else { break }
            let envelope = CommandEnvelope(requestID: next.requestID)
            var decision = Decision(
                state: s, frame: due, envelope: envelope, fromQueue: true, queuedTransition: next.transition)
            do {
                for e in try decision.decide(next.command) { apply(e) }
            } catch {
                apply(
                    NavigationEvent(
                        frame: due, command: next.requestID,
                        kind: .dropped(
                            request: next.command, code: error.code, message: error.message,
                            transition: next.transition)))
            }
        }
        return events
    }

    /// What a restart decides (docs/design.md, "Recovery"): clock-driven transitions carry on and complete on
    /// schedule (through `advance`); an interactive one has lost its gesture and is cancelled at
    /// once with reason `recovery`.
    package static func recover(_ state: NavigatorState, atFrame frame: Int64) -> [NavigationEvent] {
        guard state.status == .open, let t = state.transition, t.phase == .interactive else { return [] }
        return [
            NavigationEvent(
                frame: max(frame, state.frame), command: nil, kind: .cancelled(transition: t.id, reason: .recovery))
        ]
    }

    /// The first frame after `state.frame` at which `advance` has something to do, if any: lets a
    /// frame loop sleep instead of polling idle navigators.
    package static func nextDueFrame(_ state: NavigatorState) -> Int64? {
        guard state.status == .open else { return nil }
        if let t = state.transition {
            if t.isClockDriven { return max(t.segment.endFrame, state.frame) }
            let timeout = FrameClock.wholeFrames(state.clock.frames(forSeconds: state.config.interactionTimeout))
            return max(t.lastInteractionFrame + timeout, state.frame)
        }
        guard !state.queue.isEmpty else { return nil }
        return state.queueStartFrame
    }
}
