import SegueCore
import SegueProtocol
import SegueWire

extension EngineCore {
    /// Closes every frame whose instant has passed: the clock's events (completions, timeouts, queued
    /// starts) are appended, and each frame's ticks queued behind them.
    ///
    /// `publishTicks: false` resolves the frames without ticks (they count as missed): commands that
    /// change a navigator use it when closing a frame costs more than half a frame period, so that
    /// under overload they keep being served instead of waiting behind one frame close each.
    ///
    /// `after` names what the loop did since its last mark (serving commands, when a request closes
    /// the frames before it is placed), so that a stall found here is charged to it.
    func closeFrames(now: Int64, publishTicks: Bool = true, after phase: LoopProfile.Phase = .tasks) {
        let due = clock.frame(atOrBefore: now)
        var target = due
        if !fleet.active.isEmpty, lease != nil {
            // Before the frames are due too: on a clock behind the lease (a restart), the write is
            // made while the clock catches up, not when it gets there.
            askLease(through: max(target, fleet.closedFrame + 1))
            target = min(target, tickableThrough)
        }
        // Where frames began to wait for the lease, at an earlier close: a stall found below whose
        // frames mostly fell due since then is the lease's, not the loop's.
        let holdBegan = leaseHoldBegan
        leaseHoldBegan = target < due ? (leaseHoldBegan ?? due) : nil
        if !heldFinals.isEmpty {
            // Final ticks of frames a command passed over wait for the lease, which may not be
            // asked for by the frames still open (a fleet gone idle): ask for theirs.
            askLease(through: heldFinals[heldFinals.count - 1].tick.frame)
            publishHeldFinals()
        }
        guard target > fleet.closedFrame else { return }
        let started = timer.monotonic()
        let cpu = timer.threadCPU()
        profile.mark(phase, now: started)
        var first = fleet.closedFrame + 1
        let keep = publishTicks ? Int64(options.maxCatchUpFrames) : 0
        let skipping = !fleet.active.isEmpty && target - first >= keep
        // Explained from the stretch that ends here, before it is restarted (in place: no copy). A stall
        // counts the frames the loop fell behind by, but the last `keep`: those due when it is found,
        // the lease's held-back ones included (a stopped process wakes up past its lease), and a later
        // close that skips those does not report them again. One pause is one stall.
        let unreported = max(first, stallDueFrame + 1)
        if skipping, target - unreported >= keep {
            let frames = due - keep - unreported + 1
            stallDueFrame = due
            var stall = profile.stall(frames: frames, now: started, cpu: cpu)
            stall.overloaded = !publishTicks
            // The stretch went to waiting for the lease, whatever the loop did meanwhile; frames that
            // were behind already when the wait began (a stopped process) are the loop's stall.
            if let began = holdBegan, (due - keep - began + 1) * 2 >= frames {
                stall.phases.insert(.init(phase: .lease, nanoseconds: stall.elapsed), at: 0)
            }
            reportStall(stall)
        }
        // Each close starts the stretch that the next stall, if any, is explained from; this close's
        // own time is that stretch's first step.
        profile.restart(now: started, cpu: cpu)
        defer { profile.mark(.frames, now: timer.monotonic()) }
        if fleet.active.isEmpty {
            fleet.skipFrames(through: target)
            return
        }
        if skipping {
            // Behind (a stall, a suspended process, overload): resolve the clock's events for the
            // skipped frames, but publish ticks only for the most recent ones (none while a command
            // closes frames under overload, `publishTicks: false`), apart from the final ticks of
            // the transitions that end on the way: a subscriber still sees each transition end.
            let skipTo = target - keep
            var finals: [Tick] = []
            submitClockEvents(fleet.advance(toFrame: skipTo) { finals.append($0) })
            publishSkippedFinals(finals)
            fleet.prune(after: skipTo)
            stats.missedFrames += skipTo - first + 1
            fleet.skipFrames(through: skipTo)
            first = skipTo + 1
        }
        if first <= target {
            for frame in first...target {
                let durable = durableSeq
                var seq: Int64 = 0
                var count: Int64 = 0
                fleet.closeFrame(
                    frame,
                    advance: { fleet in
                        // The clock's events first, so that the ticks showing them queue behind them.
                        submitClockEvents(fleet.advance(toFrame: frame))
                        seq = fleet.lastSeq
                    },
                    tick: { tick in
                        publishTick(tick, after: seq, durable: durable)
                        count += 1
                    })
                sendFrameTicks()
                stats.ticks += count
                stats.framesClosed += 1
                if now - clock.instant(ofFrame: frame) > 2_000_000 { stats.lateFrames += 1 }
            }
        }
        lastCloseNanoseconds = timer.monotonic() - started
    }

    /// The final ticks of skipped frames, in frame order, each frame's as its own batch, behind the
    /// events just decided (they show them).
    private func publishSkippedFinals(_ finals: [Tick]) {
        guard !finals.isEmpty else { return }
        let seq = fleet.lastSeq
        let durable = durableSeq
        for (index, tick) in finals.enumerated() {
            if index > 0, finals[index - 1].frame != tick.frame { sendFrameTicks() }
            publishTick(tick, after: seq, durable: durable)
        }
        sendFrameTicks()
        stats.ticks += Int64(finals.count)
    }

    /// Keeps the stall for `stats` and logs it: the first at once, later ones at most every
    /// `HeldBackLines.interval`, counted meanwhile, so an overloaded machine gets a line every few seconds
    /// rather than one per frame.
    func reportStall(_ stall: LoopProfile.Stall) {
        lastStall = stall
        stats.stalls += 1
        if stall.overloaded { stats.overloadStalls += 1 }
        guard let earlier = stallLog.noted(frames: stall.frames, now: timer.monotonic()) else { return }
        let also =
            earlier.stalls > 0
            ? " (\(earlier.stalls.counted("earlier stall")) skipped \(earlier.frames.counted("frame")) "
                + "since the last report.)" : ""
        // Recovery's frames are expected (a notice); the loop falling behind is a warning.
        log(stall.longest == .recovery ? .notice : .warning, stall.message + also)
    }

    /// Whether closing frames currently costs more than half a frame period.
    var isOverloaded: Bool { lastCloseNanoseconds * 2 * Int64(clock.rate) > 1_000_000_000 }

    /// Publishes `tick` once the log is durable up to `seq`: at once when nothing is waiting and `seq`
    /// is already durable (a frame without new events, the usual case while transitions animate),
    /// encoded by the loop into its reused buffers; otherwise behind what it depends on.
    func publishTick(_ tick: Tick, after seq: Int64, durable: Int64) {
        if outbox.isEmpty, seq <= durable {
            frameTicks.append(tick)
        } else {
            outbox.enqueueTick(tick, after: seq)
        }
    }

    /// The frame's ticks that go out at once, as one action.
    func sendFrameTicks() {
        guard !frameTicks.isEmpty else { return }
        actions.append(.publishTicks(frameTicks))
        frameTicks = spareTicks
        spareTicks = []
    }

    /// Takes back a `.publishTicks` array once the loop has sent its ticks, for a later frame's.
    func recycle(_ ticks: consuming [Tick]) { spareTicks = ticks }

    /// The heartbeat and the housekeeping pass, each when due; after the outbox (the loop sends the
    /// actions in order), so every event up to a heartbeat's seq is published before it, which is
    /// how a subscriber tells that it missed the last ones (protocol.md, "Heartbeats").
    func housekeepingIfDue(now: Int64) {
        noticeClockStepBack()
        let monotonic = timer.monotonic()
        if monotonic >= nextHeartbeat { heartbeat(now: now, monotonic: monotonic) }
        if isSharded, monotonic >= nextFollow {
            // Another daemon's appends, read once a second (a page a turn while behind): this
            // daemon's next batch then numbers after them instead of losing the race for their seqs.
            let more = (try? followStep()) ?? false
            nextFollow = more ? monotonic : monotonic + 1_000_000_000
        }
        if monotonic >= nextHousekeeping { housekeeping() }
    }

    /// `hb/` once per interval, from the durable position, never gated (it shows nothing undurable).
    /// Its frame never goes back: after the wall clock steps back it is the last closed frame until
    /// the clock passes it again.
    func heartbeat(now: Int64, monotonic: Int64) {
        let interval = options.heartbeatInterval.inNanoseconds
        let heartbeat = Heartbeat(
            frame: max(clock.frame(atOrBefore: now), fleet.closedFrame), time: now, seq: durableSeq,
            navigators: fleet.navigators.count,
            version: SegueVersion.current,
            // So that a subscriber judges silence by this daemon's interval, also after a restart
            // with another one (without asking `ping` again).
            heartbeatSeconds: Double(interval) / 1e9, instance: instance, since: openedAt,
            digest: fleet.digest(asOf: durableSeq))
        actions.append(.send([.publish(topic: Topic.heartbeat.bytes, body: heartbeat.json.serializedBytes())]))
        nextHeartbeat = monotonic + max(interval, 1_000_000)
    }

    /// Says when the wall clock steps back more than a second (an NTP step, an operator): frames
    /// never go back, so ticks wait until the clock passes the last closed frame again; heartbeats
    /// and commands go on meanwhile. Both clocks are read together here: the turn's `now` may be
    /// older than a monotonic time read later in the turn, by as long as the process was stopped
    /// in between, which read as a step back.
    func noticeClockStepBack() {
        let now = timer.wall()
        let monotonic = timer.monotonic()
        defer { lastClocks = (now, monotonic) }
        guard let last = lastClocks else { return }
        let back = (monotonic - last.monotonic) - (now - last.wall)
        guard back > 1_000_000_000 else { return }
        // Frames numbered again after the step are new: a stall over them is a stall.
        stallDueFrame = min(stallDueFrame, fleet.closedFrame)
        func seconds(_ nanoseconds: Int64) -> String { JSON.messageText((Double(nanoseconds) / 1e8).rounded() / 10) }
        let waiting = clock.instant(ofFrame: fleet.closedFrame) - now
        let wait =
            waiting > 0
            ? "ticks wait until it passes frame \(fleet.closedFrame) again, in \(seconds(waiting)) s (frames never go "
                + "back); heartbeats and commands go on meanwhile"
            : "no frame was closed past it"
        log(.warning, "The wall clock went back \(seconds(back)) s: \(wait).")
    }

    /// Once a second, whatever the heartbeat interval: the log lines that rate limits held back,
    /// and the realtime policy of threads started since.
    ///
    /// `logNow` is the monotonic instant the rate limits judge by; `.max` (at shutdown) lets out
    /// every line they hold back.
    func housekeeping(logNow: Int64? = nil) {
        let monotonic = timer.monotonic()
        // Threads started since (a checkpoint's worker) inherit the loop's realtime policy: hand it
        // back. Costs a directory read when realtime, nothing otherwise.
        actions.append(.confineHelperThreads)
        reportCheckpointFailures()
        reportCommitFailures(now: logNow ?? monotonic)
        reportPendingStalls(now: logNow ?? monotonic)
        if idleTrim.isDue(requests: stats.commands, now: monotonic) { actions.append(.trimHeap) }
        if monotonic >= nextDescriptorCheck {
            actions.append(.checkDescriptors)
            nextDescriptorCheck = monotonic + 5_000_000_000
        }
        nextHousekeeping = monotonic + 1_000_000_000
    }

    /// The stalls folded into no line yet (`StallLog`), ten seconds after the last line at most.
    func reportPendingStalls(now: Int64) {
        guard let (stalls, frames) = stallLog.pending(now: now), let lastStall else { return }
        log(
            .warning,
            "The frame loop skipped \(frames.counted("frame")) in \(stalls.counted("more stall")) since the last "
                + "report. The last one, in full: \(lastStall.message)")
    }

    /// The failed commits not logged yet (`CommitFailureLog`), once a second at most.
    func reportCommitFailures(now: Int64) {
        // A recovery is said once it has lasted (`CommitFailureLog`), whether or not commits go on;
        // its line counts the failures not reported yet.
        if let failed = commitFailureLog.recovered(now: now) { logCommitsRecovered(failed) }
        if let failed = lookupFailureLog.recovered(now: now) { logLookupsRecovered(failed) }
        if let (count, last) = commitFailureLog.pending(now: now) {
            log(
                .error,
                "\(count) more commit(s) failed (the last: \(last)). Commands get unavailable until storage recovers.")
        }
        if let (count, last) = lookupFailureLog.pending(now: now) {
            log(
                .error,
                "\(count) more command id lookup(s) failed (the last: \(last)). Commands whose id must be looked up "
                    + "get unavailable until storage recovers.")
        }
    }

    func logCommitsRecovered(_ failed: Int) {
        log(.notice, "Commits succeed again, after \(failed) failed commit(s).")
    }

    func logLookupsRecovered(_ failed: Int) {
        log(.notice, "Command id lookups succeed again, after \(failed) failed lookup(s).")
    }

    /// Says so (once a second at most, from `housekeeping`) when WAL checkpoints have failed since the
    /// last report: commands still commit, but a WAL that cannot be copied back keeps growing, and a
    /// persistent I/O error or full disk on the database file would otherwise stay invisible until
    /// commits start failing.
    func reportCheckpointFailures() {
        let failures = store.walCheckpoints.failures
        guard failures > walCheckpointFailuresReported else { return }
        log(
            .warning,
            "\(failures - walCheckpointFailuresReported) WAL checkpoint(s) failed (\(failures) since start): the "
                + "WAL is not being copied back into the database file. Check the data directory's disk.")
        walCheckpointFailuresReported = failures
    }
}
