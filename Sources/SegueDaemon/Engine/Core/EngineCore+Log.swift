import SegueCore
import SegueProtocol
import SegueStore
import SegueWire

extension EngineCore {
    /// The snapshot row that marks a complete checkpoint: its seq is where the tail starts. `#` is not
    /// allowed in navigator names, so it can never collide with one.
    static let checkpointMarker = "#checkpoint"

    // MARK: Appending

    /// Numbers nothing (the fleet already did): queues one unit for this loop turn's commit and its
    /// events for publication behind it.
    func submit(
        _ events: [EventRecord], commandID: String?, navigator: String?, reply: JSON?, fingerprint: UInt64? = nil
    ) {
        guard !events.isEmpty else { return }
        // Each event is written once: the published body, whose `data` the store copies.
        let encoded = events.map { $0.encodedWithData() }
        uncommitted.append(
            AppendUnit(
                events: events, commandID: commandID, navigator: navigator, reply: reply, fingerprint: fingerprint,
                encoded: encoded, generation: epoch))
        // A command's events are all of one navigator: its topic is looked up, and the navigator
        // marked dirty, once per run of events of the same navigator.
        var current: String?
        var topic: [UInt8] = []
        for index in events.indices {
            let navigator = events[index].navigator
            if navigator != current {
                topic = eventTopic(navigator)
                dirty.insert(navigator)
                current = navigator
            }
            outbox.enqueue(.publish(topic: topic, body: encoded[index].bytes), after: events[index].seq)
        }
    }

    /// `event/<navigator>/` as bytes, built once per navigator.
    func eventTopic(_ navigator: String) -> [UInt8] {
        if let topic = eventTopics[navigator] { return topic }
        let topic = Topic.event(navigator: navigator).bytes
        eventTopics[navigator] = topic
        return topic
    }

    func submitClockEvents(_ events: [EventRecord]) {
        submit(events, commandID: nil, navigator: nil, reply: nil)
    }

    /// Hands out what this loop turn decided, to commit all in one transaction: on the loop's thread
    /// when the store's writer is idle (the usual case: a lone command then waits for no other
    /// thread, and a burst of commands read in one turn shares one sync), otherwise through the group
    /// committer. Then releases what is already durable.
    func commitDecided() {
        defer {
            flushOutbox()
            // Behind this turn's batch, which holds what a lost race's commands became.
            if yieldsLogTurn, raceReruns.isEmpty {
                yieldsLogTurn = false
                actions.append(.yieldLogTurn)
            }
        }
        guard !uncommitted.isEmpty else { return }
        let units = uncommitted
        uncommitted.removeAll(keepingCapacity: true)
        stats.commits += 1
        stats.committedUnits += Int64(units.count)
        actions.append(.append(units, epoch: epoch))
        // A transition may have started: its first tick needs a lease, written behind its events.
        if !fleet.active.isEmpty { askLease(through: fleet.closedFrame + 1) }
    }

    /// When the loop is to stop waiting for the commands of clients that were writing a moment ago
    /// and are not in this batch yet (a closed-loop client sends its next command as soon as its
    /// reply lands), so that one sync covers them all instead of each paying its own; nil: commit
    /// now. PostgreSQL's `commit_delay` with `commit_siblings`, and MySQL's binlog group commit
    /// delay, do the same.
    func siblingDeadline(now: Int64) -> Int64? {
        guard !uncommitted.isEmpty, !batchClients.isEmpty, options.commitDelay > .zero else { return nil }
        let window = options.writerWindow.inNanoseconds
        writerActivity = writerActivity.filter { now - $0.value <= window }
        guard writerActivity.count > batchClients.count else { return nil }
        var deadline = now + options.commitDelay.inNanoseconds
        if !fleet.active.isEmpty { deadline = min(deadline, clock.instant(ofFrame: fleet.closedFrame + 1)) }
        stats.siblingWaits += 1
        return deadline
    }

    /// Whether a recent writer has no request in this batch yet (`siblingDeadline`).
    var awaitsSiblings: Bool { writerActivity.keys.contains { !batchClients.contains($0) } }

    /// The batch is committed: the next one gathers its own clients.
    func endBatch() { batchClients.removeAll(keepingCapacity: true) }

    /// Notes a request from `client` waiting on the next commit; `mutating` ones make it a sibling.
    func noteClient(_ client: [UInt8], mutating: Bool, now: Int64) {
        batchClients.insert(client)
        if mutating { writerActivity[client] = now }
    }

    /// Applies commit results: the durable seq advances, or a failed commit voids everything after
    /// the durable seq and rolls the fleet back to it (nothing unacknowledged is ever shown).
    func apply(_ completions: [EngineCompletion]) {
        for completion in completions { apply(completion) }
        fleet.markDurable(through: durableSeq)
        flushOutbox()
    }

    private func apply(_ completion: EngineCompletion) {
        guard completion.epoch == epoch else { return }
        switch completion.result {
        case .success:
            durableSeq = max(durableSeq, completion.seq)
            stats.events += Int64(completion.events)
            if let failed = commitFailureLog.succeeded(now: timer.monotonic()) { logCommitsRecovered(failed) }
        case .failure(let error):
            commitFailed(error)
        }
    }

    private func commitFailed(_ error: StoreError) {
        stats.commitFailures += 1
        epoch += 1
        // The store may have taken the log's turn for a later unit of the batch than the one that
        // failed first (a race behind a duplicate id): after any failure it is given back once the
        // commands are decided again (a yield of a turn not held does nothing).
        if isSharded { yieldsLogTurn = true }
        // What the log holds past what this engine confirmed: a batch whose outcome was lost and that
        // committed after all. A seq refused for it (the batches numbered behind the rollback) is no
        // storage fault: their commands are decided again. Anything else that moved the log (a log
        // restored under the daemon) stays a failure.
        let durable = store.lastSeq
        let moved = Self.isLogMoved(error)
        let lateCommit = !isSharded && moved && rerunsLostBatches && durable > durableSeq
        if error.kind == .misconfigured {
            stopMisconfigured(error)
        } else if isSharded, Self.isFenced(error) {
            log(.warning, "An append was refused by a shard's fence (\(error.message)): another daemon took over.")
            actions.append(.checkLeadership)
        } else if isSharded, Self.isLogMoved(error) {
            stats.lostRaces += 1
            if let (held, _) = raceLog.noted(now: timer.monotonic()) {
                log(
                    .info,
                    "Another daemon appended first; the commands of the batch after seq \(durableSeq) are decided "
                        + "again" + (held > 0 ? " (\(held) more such batches since the last line)." : "."))
            }
        } else if lateCommit {
            log(
                .info,
                "The batch after seq \(durableSeq) was numbered before a commit whose outcome was lost was found "
                    + "stored; its commands are decided again.")
        } else if let reason = commitFailureLog.reason(error, now: timer.monotonic()) {
            log(
                .error,
                "Commit failed after seq \(durableSeq): \(reason). Commands get unavailable until storage recovers; nothing after seq \(durableSeq) was kept."
            )
        }
        // Only what this engine's own commit results confirmed goes out, and only that stays in the
        // fleet. The log may hold more: a batch whose outcome was lost and that committed after
        // all. Events decided since then were numbered on the same seqs and can never be stored, so
        // the fleet goes back to what it knows and folds the rest in from the log.
        let confirmed = min(durableSeq, durable)
        durableSeq = confirmed
        flushOutbox()
        uncommitted.removeAll()
        let cause: VoidedReply.Cause =
            error.isDamage
            ? .damaged
            : isSharded && (moved || error.kind == .duplicateCommand)
                ? .raced : lateCommit ? .lateCommit : .storage
        let voided = outbox.voidUndurable(cause)
        let answers = cause == .raced || cause == .lateCommit ? keepForRerun(voided.answers) : voided.answers
        if !answers.isEmpty { actions.append(.send(answers)) }
        fleet.rollback(to: confirmed)
        keepDurableTicks(voided.ticks)
        // With several daemons, what the log holds past the fleet may be another's, which it publishes.
        if durable > fleet.lastSeq { takeCommittedFromStore(through: durable, ours: isSharded ? voided.events : nil) }
        keepDurableHeldFinals()
        // Their ids stay in the filter of stored ids (`knownCommandIDs`): a retry of one is looked
        // up, found new and applied, as a false positive is; one the log holds gets its stored reply.
        recentCommands.forget(after: confirmed)
        pendingCheckpoint = nil
        dirty.formUnion(fleet.navigators.keys)
    }

    /// The log's other daemons run with a setting this one does not share (they were all restarted
    /// with another shard count while it was cut off): serving on would put names in other shards
    /// than theirs. The loop stops as on SIGTERM (the commit in flight finished, the shards given up
    /// for them to take; the lease is not cut back, since the writer has no session to do it with) and
    /// segued exits 78; a restart is refused with the same message until the setting is theirs.
    func stopMisconfigured(_ error: StoreError) {
        guard !stopsMisconfigured else { return }
        stopsMisconfigured = true
        log(.critical, "Stopping: \(error.message)")
        actions.append(.stop)
    }

    /// After a rollback, before anything is taken from the log: the ticks that waited behind the voided
    /// events but show a navigator's confirmed state (its revision not past the rolled-back fleet's)
    /// go out after all. Their frames are closed and are not closed again: dropped, they were lost,
    /// final ticks too, for every transition in flight beside a batch that failed (with several
    /// daemons on the log, at each race lost).
    func keepDurableTicks(_ ticks: [Tick]) {
        for tick in ticks {
            guard let state = fleet.navigators[tick.navigator], state.revision >= tick.revision else { continue }
            outbox.enqueueTick(tick, after: durableSeq)
        }
    }

    /// After a rollback: the final ticks held for the lease that show voided events are dropped,
    /// and those that show durable ones now wait for the durable seq. A held final waits behind the
    /// fleet's last seq when it was held, which may be another navigator's voided event: kept as it
    /// was, it would wait in the outbox for a seq the log may never reach, and every reply with it.
    func keepDurableHeldFinals() {
        guard !heldFinals.isEmpty else { return }
        heldFinals = heldFinals.compactMap { held in
            guard held.seq > durableSeq else { return held }
            // Its navigator's revision is past the tick's: the state it shows is in the log.
            guard let state = fleet.navigators[held.tick.navigator], state.revision >= held.tick.revision else {
                return nil
            }
            return (held.tick, durableSeq)
        }
    }

    // MARK: Start-up

    /// Folds the newest checkpoint and the tail of the log into the fleet, asking `keepFolding` every
    /// `foldCheckEvery` events: a log imported or migrated has no checkpoint yet, and its first fold,
    /// seconds per hundred thousand events, must not outlast a stop asked for meanwhile (systemd's
    /// `TimeoutStopSec=`).
    func rebuild(keepFolding: () -> Bool = { true }) throws -> Fold {
        var tailFrom: Int64 = 0
        if let marker = try store.snapshot(of: Self.checkpointMarker, atOrBefore: .max) {
            tailFrom = marker.seq
            // `#`: the checkpoint marker and the frame leases, which no navigator name can begin with;
            // the leases of shards count too, should the log have been led by several daemons.
            for snapshot in try store.latestSnapshots() {
                guard !snapshot.navigator.hasPrefix("#") else {
                    if let end = FrameLease.end(snapshot) { lease?.found(end) }
                    continue
                }
                var snapshot = snapshot
                if snapshot.seq > marker.seq {
                    // Saved by a checkpoint after the marker was read (another daemon on a shared
                    // log checkpoints while this one starts): the navigator's row at the marker is
                    // an older one.
                    guard let older = try store.snapshot(of: snapshot.navigator, atOrBefore: marker.seq) else {
                        continue
                    }
                    snapshot = older
                }
                let state = try NavigatorState(json: snapshot.state)
                fleet.restore(state, seq: snapshot.seq, frame: state.frame, time: 0)
            }
            fleet.restore(
                Navigator.initialState(name: Self.checkpointMarker, clock: clock), seq: marker.seq,
                frame: marker.state["frame"]?.int64Value ?? 0, time: marker.state["time"]?.int64Value ?? 0)
            fleet.forget(Self.checkpointMarker)
        }
        var folded = 0
        var fleet = self.fleet
        var tail: Set<String> = []
        var stoppedAt: Int64?
        do throws(StoreError) {
            try store.forEachEvent(after: tailFrom) { record throws(StoreError) in
                do throws(CoreError) { try fleet.apply(record) } catch {
                    throw StoreError(kind: .invalidData, message: "The log cannot be folded: \(error.message)")
                }
                tail.insert(record.navigator)
                folded += 1
                if folded % Self.foldCheckEvery == 0, !keepFolding() {
                    stoppedAt = record.seq
                    // Ends the read; said as `FoldStopped` below.
                    throw StoreError(kind: .invalidData, message: "stopped")
                }
            }
        } catch {
            if let stoppedAt { throw FoldStopped(seq: stoppedAt, lastSeq: store.lastSeq) }
            throw error
        }
        self.fleet = fleet
        // Navigators changed after the checkpoint have no snapshot at it: the next checkpoint must
        // write theirs, or a restart after it would start them from nothing (or a stale snapshot).
        dirty = tail
        durableSeq = fleet.lastSeq
        lastCheckpointSeq = tailFrom
        try readLease()
        return Fold(checkpoint: tailFrom, events: folded)
    }

    static let foldCheckEvery = 1024

    /// The fold at start ended by a stop asked for meanwhile, at `seq` of the log's `lastSeq`.
    struct FoldStopped: Error {
        var seq: Int64
        var lastSeq: Int64
    }

    /// docs/design.md, "Recovery": transitions that fell due while the daemon was down complete on
    /// schedule; interactive ones lost their gesture and are cancelled with reason `recovery`. Returns
    /// the events to append (durably, before anything else) and then hand to `recovered`.
    func recover(now: Int64) -> [EventRecord] {
        // What the clock decides (completions, a paused transition's interaction timeout) falls due
        // at its own frames up to now, exactly as it would have live. The interactive transitions,
        // whose gestures did not survive the restart, are cancelled for recovery instead, even if
        // their timeout fell due while the daemon was down: at the first frame not ticked yet. Before
        // the restart, subscribers saw ticks showing them interactive up to some frame before now, and
        // the log must not say otherwise (a replay reproduces the ticks, and nothing seen is taken
        // back), so the cancel cannot go in right after the last logged event.
        openedAt = fleet.lastSeq
        let clockFrame = clock.frame(atOrBefore: now)
        let through = max(clockFrame, fleet.lastFrame, lease?.durable ?? -1)
        reportLeaseAhead(ofFrame: clockFrame)
        var events = fleet.advance(toFrame: through, sparing: fleet.interactiveNavigators)
        events += fleet.recover(atFrame: through + 1)
        fleet.skipFrames(through: through)
        fleet.markDurable(through: fleet.lastSeq)
        return events
    }

    /// Recovery's events are durable: they are published like any event, in seq order and before
    /// anything a command adds (a frontend that showed a transition in flight learns here that it
    /// completed or was cancelled; in the log alone, views would stay frozen on their last tick).
    /// `waited`: how long the loop gave subscribers to reconnect first (milliseconds), for the log.
    func recovered(_ events: [EventRecord], waited: Int) {
        guard !events.isEmpty else { return }
        for record in events { dirty.insert(record.navigator) }
        actions.append(.send(events.map { .publish(topic: eventTopic($0.navigator), body: $0.encoded()) }))
        durableSeq = fleet.lastSeq
        log(
            .info,
            "Published \(events.count.counted("recovered event")) after \(waited) ms for subscribers to reconnect "
                + "(\(stats.subscriptions) subscriptions).")
        let cancelled = events.filter { $0.type == "transition.cancelled" }.count
        log(
            .notice,
            "Recovered \(events.count.counted("event")) at start-up (\(cancelled.counted("transition")) cancelled for recovery or timeout)."
        )
    }

    // MARK: Checkpoints

    /// Every `checkpointEvery` events, snapshots every navigator changed since the last checkpoint,
    /// written once the log is durable up to it (a snapshot must never show an undurable effect).
    func checkpointIfDue() {
        // A checkpoint covers every navigator of the log, which a daemon leading some shards lacks.
        guard !isSharded else { return checkpointLogFold() }
        if pendingCheckpoint == nil, fleet.lastSeq - lastCheckpointSeq >= Int64(options.checkpointEvery) {
            let seq = fleet.lastSeq
            var snapshots = dirty.compactMap { name -> Snapshot? in
                guard let s = fleet.navigators[name] else { return nil }
                return Snapshot(navigator: name, seq: seq, revision: s.revision, state: s.json)
            }
            snapshots.append(
                Snapshot(
                    navigator: Self.checkpointMarker, seq: seq, revision: 0,
                    state: ["frame": .int(fleet.lastFrame), "time": .int(fleet.lastTime)]))
            dirty.removeAll(keepingCapacity: true)
            pendingCheckpoint = (seq, snapshots)
            lastCheckpointSeq = seq
        }
        guard let pending = pendingCheckpoint, durableSeq >= pending.seq else { return }
        pendingCheckpoint = nil
        stats.checkpoints += 1
        actions.append(.saveSnapshots(seq: pending.seq, pending.snapshots))
    }
}
