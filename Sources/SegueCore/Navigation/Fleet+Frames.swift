extension Fleet {
    /// Closes `frame`: the one path from a fleet and a frame to ticks, taken by the daemon's frame
    /// loop and by replay alike, so that a replay shows what the daemon published (docs/design.md,
    /// "The frame clock": the tick of frame F shows exactly the events of frames ≤ F).
    ///
    /// `advance` first brings the navigators to the frame: live, the clock decides the events due
    /// (`advance(toFrame:)`); in replay, the log's events of frames up to it are applied (`apply`),
    /// since the daemon recorded what its clock decided. Either way the caller queues those events
    /// there, before the ticks that show them. Then the frame's ticks go to `tick` one at a time, in
    /// the order the daemon publishes them, and navigators gone idle leave the active set.
    package mutating func closeFrame<Failure: Error>(
        _ frame: Int64, advance: (inout Fleet) throws(Failure) -> Void, tick: (Tick) -> Void
    ) throws(Failure) {
        try advance(&self)
        takeTicks(closing: frame, tick)
    }

    /// Everything the clock decides up to `frame` across all navigators, in frame order.
    ///
    /// One pass: navigators are independent, so each is advanced on its own and the results are
    /// merged by frame (stable, so ties keep the active order). Frames are usually closed one at a
    /// time, when every due event is in the frame being closed.
    package mutating func advance(toFrame frame: Int64) -> [EventRecord] {
        decideDue(toFrame: frame).map {
            append($0.event, navigator: $0.name, time: max(clock.instant(ofFrame: $0.frame), lastTime))
        }
    }

    /// `advance(toFrame:)` over frames the loop skips (it fell behind), handing `finalTick` the final
    /// tick of each transition that ends on the way: at its end frame, from the navigator's state as
    /// of that frame, as closing that frame would have made it. So a subscriber sees every transition
    /// end, skipped frames or not: those the clock ends, and those a command ended in the first
    /// frame not closed yet (a non-animated push placed just before the loop fell behind).
    ///
    /// At a shard's takeover (`joined`): its navigators just joined, and the frames after `after`
    /// (the previous leader's last) were closed by nobody for them, while the others' were; those in
    /// `sparing` (their gestures lost with the previous leader) are left to `recover(atFrame:)`.
    package mutating func advance(
        toFrame frame: Int64, joined: (names: Set<String>, after: Int64)? = nil, sparing: Set<String>? = nil,
        finalTick: (Tick) -> Void
    ) -> [EventRecord] {
        let delay = presentationDelay
        let first = (joined?.after ?? closedFrame) + 1
        // The digests looked up only for a final tick, as in `takeTicks`.
        let digests = self.digests
        for name in active where joined?.names.contains(name) ?? true {
            inPlace(name) { state in
                // Ended by a command, and no clock event due by then: the state is as of that frame.
                // A joined navigator's state is the log's, which may hold events after the end (the
                // previous leader's, placed past its lease): then it is not as of that frame, and its
                // final tick cannot be made from it.
                guard let end = state.ended.last?.endFrame, end >= first, end <= frame,
                    Navigator.nextDueFrame(state).map({ $0 > end }) ?? true, joined == nil || state.frame <= end
                else { return }
                Navigator.forEachFinalTick(
                    state, frame: end, presentationDelay: delay, digest: { digests[name] }, finalTick)
            }
        }
        let due = decideDue(toFrame: frame, sparing: sparing)
        var records: [EventRecord] = []
        records.reserveCapacity(due.count)
        var start = 0
        // Frame by frame: once a frame's events are in, its navigators' states are as of that frame.
        while start < due.count {
            let at = due[start].frame
            var end = start
            while end < due.count, due[end].frame == at {
                let time = max(clock.instant(ofFrame: at), lastTime)
                records.append(append(due[end].event, navigator: due[end].name, time: time))
                end += 1
            }
            // A navigator's events of one frame are adjacent (decided together, sorted stably).
            for index in start..<end where index == start || due[index - 1].name != due[index].name {
                // Read after this frame's events went in: the digests of the states as of `at`.
                let known = self.digests[due[index].name]
                inPlace(due[index].name) {
                    Navigator.forEachFinalTick($0, frame: at, presentationDelay: delay, digest: { known }, finalTick)
                }
            }
            start = end
        }
        return records
    }

    /// `advance(toFrame:)` at a restart: the clock's events that fell due while the daemon was down,
    /// except for the navigators in `sparing` (those whose gestures were lost with the process, which
    /// `recover(atFrame:)` cancels for recovery, their interaction timeouts due or not).
    package mutating func advance(toFrame frame: Int64, sparing: Set<String>) -> [EventRecord] {
        decideDue(toFrame: frame, sparing: sparing).map {
            append($0.event, navigator: $0.name, time: max(clock.instant(ofFrame: $0.frame), lastTime))
        }
    }

    /// The open navigators whose transition a client drives (not paused): what a restart cancels.
    package var interactiveNavigators: Set<String> {
        Set(active.filter { navigators[$0]?.transition?.phase == .interactive })
    }

    /// The events the clock decides up to `frame`, in frame order, not yet appended.
    private mutating func decideDue(
        toFrame frame: Int64, sparing: Set<String>? = nil
    ) -> [(frame: Int64, order: Int, name: String, event: NavigationEvent)] {
        if let earliestDue, frame < earliestDue { return [] }
        var due: [(frame: Int64, order: Int, name: String, event: NavigationEvent)] = []
        var later = Int64.max
        let floor = lastFrame
        for name in active where sparing.map({ !$0.contains(name) }) ?? true {
            inPlace(name) { state in
                guard let next = Navigator.nextDueFrame(state) else { return }
                guard next <= frame else {
                    later = min(later, next)
                    return
                }
                let events = Self.dueEvents(state, toFrame: frame, floor: floor)
                // Nothing decided although due: look again next frame, as without the cache.
                if events.isEmpty { later = min(later, next) }
                for event in events {
                    due.append((event.frame, due.count, name, event))
                }
            }
        }
        // Appending the due events changes states, which clears this again.
        earliestDue = later
        due.sort { ($0.frame, $0.order) < ($1.frame, $1.order) }
        return due
    }

    /// What the clock decides for `state` up to `frame`, never before `floor`, the log's last frame: frames
    /// never go back in a log. Only a log that moved on without this fleet's events makes the floor
    /// bind: after a failed commit's rollback (the voided events' frames stay the high-water mark), or
    /// behind another daemon's events on a shared log. An event due earlier then takes effect at that
    /// frame, as a completion seen late.
    static func dueEvents(_ state: NavigatorState, toFrame frame: Int64, floor: Int64) -> [NavigationEvent] {
        guard state.frame < floor else { return Navigator.advance(state, toFrame: frame) }
        var raised = state
        raised.frame = floor
        return Navigator.advance(raised, toFrame: frame)
    }

    /// Advances every navigator to `frame` and takes its ticks; later commands land after it.
    /// Frames must be closed in order; an idle fleet closes a frame in constant time.
    package mutating func closeFrame(_ frame: Int64) -> (events: [EventRecord], ticks: [Tick]) {
        let events = advance(toFrame: frame)
        var ticks: [Tick] = []
        ticks.reserveCapacity(active.count)
        takeTicks(closing: frame) { ticks.append($0) }
        return (events, ticks)
    }

    /// The second half of `closeFrame`, for a frame loop that handles the clock's events (from
    /// `advance(toFrame: frame)`, called first) before the ticks that show them: marks `frame`
    /// closed and hands its ticks to `body` one at a time, in the order `closeFrame` returns them,
    /// without gathering them into an array.
    package mutating func takeTicks(closing frame: Int64, _ body: (Tick) -> Void) {
        closedFrame = max(closedFrame, frame)
        let delay = presentationDelay
        // The digests looked up only for a final tick (one hash of the name a tick, not two).
        let digests = self.digests
        for name in active {
            inPlace(name) {
                Navigator.forEachTick($0, frame: frame, presentationDelay: delay, digest: { digests[name] }, body)
            }
        }
        prune(after: frame)
    }

    /// The ticks of every active navigator for `frame` (the fleet must hold the events up to it).
    package mutating func ticks(frame: Int64, prune: Bool = false) -> [Tick] {
        var out: [Tick] = []
        out.reserveCapacity(active.count)
        let delay = presentationDelay
        for name in active {
            // Read in place through the dictionary's modify accessor: a plain lookup would copy the
            // whole state (retaining every member) for each navigator in every frame.
            let known = digests[name]
            inPlace(name) {
                Navigator.appendTicks($0, frame: frame, presentationDelay: delay, digest: known, to: &out)
            }
        }
        if prune { self.prune(after: frame) }
        return out
    }

    /// Drops navigators with nothing in flight and no final tick after `frame` from the active list.
    ///
    /// Only navigators whose transition ended (or that were closed) since they last became idle can
    /// go idle, so only those are looked at: a frame with thousands of transitions in flight and
    /// none ending costs nothing here.
    package mutating func prune(after frame: Int64) {
        guard !pruneCandidates.isEmpty else { return }
        var idle: Set<String> = []
        for name in pruneCandidates {
            var state: (busy: Bool, endsLater: Bool) = (false, false)
            inPlace(name) { s in
                let endsLater = (s.ended.last?.endFrame ?? .min) > frame
                state = (s.hasTransition || !s.queue.isEmpty || endsLater, endsLater)
            }
            if !state.busy { idle.insert(name) }
            if !state.endsLater { pruneCandidates.remove(name) }
        }
        guard !idle.isEmpty else { return }
        active.removeAll { idle.contains($0) }
        isActive.subtract(idle)
    }
}
