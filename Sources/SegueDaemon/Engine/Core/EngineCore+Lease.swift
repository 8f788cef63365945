import SegueCore
import SegueStore

/// The frame lease (`FrameLease`): ticks go out only for frames the log holds a lease for.
extension EngineCore {
    /// The last frame whose ticks may be published now.
    var tickableThrough: Int64 { lease?.durable ?? .max }

    /// Asks for a longer lease when frames through `frame` are about to be ticked and it runs short.
    func askLease(through frame: Int64) {
        guard var current = lease, let end = current.ask(through: frame) else { return }
        lease = current
        actions.append(.saveLease(frame: end, shards: isSharded ? led : nil, generation: current.generation))
    }

    /// A lease write ended; the loop's next frame close takes the frames it allows. A write asked
    /// for before a shard was taken (another generation) covers none of its frames.
    /// A write refused by a shard's fence (another daemon took the shard) leaves the frames where
    /// they are and has the leadership checked, as a fenced append does.
    func leased(_ end: Int64, generation: Int, failure: StoreError?, now: Int64) {
        guard var current = lease, generation == current.generation else { return }
        let wasFailing = current.failing
        current.settle(end, saved: failure == nil, at: clock.frame(atOrBefore: now))
        lease = current
        // Not left for the next frame close: a fleet gone idle has none.
        if failure == nil, !heldFinals.isEmpty { publishHeldFinals() }
        let fenced = failure.map { isSharded && Self.isFenced($0) } ?? false
        if fenced { actions.append(.checkLeadership) }
        if let failure, failure.kind == .misconfigured {
            stopMisconfigured(failure)
        } else if let failure, fenced, !wasFailing {
            log(
                .warning,
                "A frame lease write was refused by a shard's fence (\(failure.message)): another daemon took over; "
                    + "ticks stop at frame \(current.durable).")
        } else if let failure, !wasFailing {
            log(
                .error,
                "Could not save the frame lease through frame \(end) (\(failure)): ticks wait until a write "
                    + "succeeds.")
        } else if failure == nil, wasFailing {
            log(.notice, "Saved the frame lease again (through frame \(end)): ticks go out.")
        }
    }

    /// The lease the log holds for the whole log, at start with one daemon: recovery starts after it.
    func readLease() throws(StoreError) {
        guard lease != nil, !isSharded, let end = try FrameLease.read(from: store, shard: nil) else { return }
        lease?.found(end)
    }

    /// A restart whose lease runs past the clock: frames wait for the clock to pass it, and the log
    /// says why; as a warning when further than any lease runs past its last tick (the clock went
    /// back across the restart).
    func reportLeaseAhead(ofFrame clockFrame: Int64) {
        guard let lease, lease.durable > clockFrame else { return }
        let seconds = (Double(lease.durable - clockFrame) * 10 / Double(clock.rate)).rounded() / 10
        // A lease runs at most a span and a half past the last tick, which was before now.
        if lease.durable - clockFrame > lease.span * 3 / 2 {
            log(
                .warning,
                "The wall clock is \(seconds) s behind the frames this log may have ticked before the restart "
                    + "(its frame lease runs through \(lease.durable)): frames resume when the clock passes it.")
        } else {
            log(
                .notice,
                "Frames resume after frame \(lease.durable) (in \(seconds) s), the end of the frame lease the "
                    + "previous run held: its ticks may have reached it.")
        }
    }

    /// At a graceful stop, the lease cut back to the last frame closed (every tick published is at
    /// or before it), so that the next start, or a standby, need not wait out the rest of it.
    var leaseAtStop: (frame: Int64, shards: [Int: Int64]?)? {
        guard lease != nil else { return nil }
        return (fleet.closedFrame, isSharded ? led : nil)
    }

    /// A shard was taken: the lease must name it before any of its navigators is ticked.
    func leaseShards() { lease?.revoke(after: fleet.closedFrame) }

    /// Shards were lost: a write asked for before covered them too, and one their fence refused holds
    /// the others' ticks, so a new one is asked for at once; what is written stays good for the others.
    func leaseShardsLeft() { lease?.revoke(after: .max) }

    /// Before a command is placed at the clock's frame: the frames the lease still holds open are
    /// passed over (they count as missed). Their ticks, published later, would be taken from a fleet
    /// that already holds the command, a frame or more before its logged frame; so only the final
    /// ticks of transitions that end there are kept, taken now from the states as of their frames,
    /// and published once the lease covers them (`publishHeldFinals`), as a skip publishes them: a
    /// subscriber sees every transition end (a non-animated push's only tick among them).
    func passHeldFrames(now: Int64) {
        guard lease != nil else { return }
        holdFrames(through: clock.frame(atOrBefore: now), keepingFinals: true)
    }

    /// Resolves frames through `frame` without ticks: a shard taken over starts after its previous
    /// leader's lease, and so must every navigator of this daemon, whose frames are one clock. The
    /// final ticks of transitions that end on the way are dropped (the previous leader's to tick),
    /// or with `keepingFinals` held for the lease (`passHeldFrames`).
    func holdFrames(through frame: Int64, keepingFinals: Bool = false) {
        guard frame > fleet.closedFrame else { return }
        if !fleet.active.isEmpty {
            var finals: [Tick] = []
            submitClockEvents(fleet.advance(toFrame: frame) { if keepingFinals { finals.append($0) } })
            let seq = fleet.lastSeq
            heldFinals += finals.map { ($0, seq) }
            fleet.prune(after: frame)
            stats.missedFrames += frame - fleet.closedFrame
        }
        fleet.skipFrames(through: frame)
    }

    /// The held final ticks whose frames the lease now covers, in frame order, each frame's as its
    /// own batch, behind the events they show.
    func publishHeldFinals() {
        guard let first = heldFinals.first, first.tick.frame <= tickableThrough else { return }
        let durable = durableSeq
        var published = 0
        for (index, held) in heldFinals.enumerated() {
            guard held.tick.frame <= tickableThrough else { break }
            if index > 0, heldFinals[index - 1].tick.frame != held.tick.frame { sendFrameTicks() }
            publishTick(held.tick, after: held.seq, durable: durable)
            published += 1
        }
        sendFrameTicks()
        stats.ticks += Int64(published)
        heldFinals.removeFirst(published)
    }
}
