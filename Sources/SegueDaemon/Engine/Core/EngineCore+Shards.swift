import SegueCore
import SeguePostgres
import SegueProtocol
import SegueStore

/// Several daemons on one PostgreSQL log (docs/operations.md, "Several daemons on one log"): the
/// fleet holds only the navigators of the shards this daemon leads, and only the log's position for
/// the rest; a command for a navigator led elsewhere is answered `moved`.
extension EngineCore {
    var isSharded: Bool { options.shards != nil }

    /// Whether this daemon decides for `navigator` (always, with one daemon on the log).
    func leads(_ navigator: String) -> Bool {
        guard let shards = options.shards else { return true }
        return led[shards.shard(of: navigator)] != nil
    }

    /// Nothing of this daemon's own waits to commit: the fleet may take events from the log.
    var isQuiescent: Bool { uncommitted.isEmpty && durableSeq >= fleet.lastSeq }

    /// A leadership change waits for the commits in flight: the loop stops reading commands meanwhile.
    var holdsRequests: Bool { !pendingLeadership.isEmpty && !isQuiescent }

    /// Applies the changes that arrived, once nothing of this daemon's own is uncommitted (what the
    /// fleet takes from the log is numbered after what it committed).
    func applyLeadership(now: Int64) {
        guard !pendingLeadership.isEmpty, isQuiescent else { return }
        let changes = pendingLeadership
        pendingLeadership.removeAll()
        for change in changes {
            switch change {
            case .acquired(let shard, let epoch): takeOver(shard, epoch: epoch, now: now)
            case .lost(let shards, let reason): stepDown(shards, reason: reason)
            }
        }
    }

    /// The reply for a command on a navigator another daemon leads, or nil when this one leads it.
    func movedReply(_ request: Request) -> JSON? {
        guard let shards = options.shards, let name = request.navigator, !leads(name) else { return nil }
        let shard = shards.shard(of: name)
        guard let leader = leaderOf(shard) else {
            return Reply.error(
                id: request.id, .unavailable,
                "No daemon leads shard \(shard) (navigator \(name)) at the moment, as far as this daemon can "
                    + "see: a takeover is under way, or the log's database cannot be reached. Retry in a moment, "
                    + "with the same id.")
        }
        return MovedReply(navigator: name, shard: shard, leader: leader).json(id: request.id)
    }

    // MARK: Following the log

    /// At start, with shards: the fold of the whole log becomes `logFold`, and the fleet keeps only
    /// its position (each shard's navigators join it when the shard is taken).
    func followFromPosition() {
        logFold = fleet
        var position = Fleet(clock: clock)
        position.skip(toSeq: fleet.lastSeq, frame: fleet.lastFrame, time: fleet.lastTime)
        fleet = position
        logFoldDirty = dirty
        dirty.removeAll()
        durableSeq = fleet.lastSeq
    }

    /// Folds what was appended since into `logFold` (always safe: it holds only durable events).
    func followLog() throws(StoreError) { try follow(movingFleet: false) }

    /// `followLog`, and moves the fleet's position past what other daemons appended. Call only when
    /// quiescent: the fleet's next events are numbered after them.
    func catchUp() throws(StoreError) { try follow(movingFleet: true) }

    /// Most events of the log the loop folds in one turn when it follows the log unasked
    /// (`followStep`): a second of three daemons' appends under load, or the seconds a daemon cut
    /// off missed, folded at once held frames back for 150 to 450 ms.
    static let followPage = 256

    /// Follows the log by at most `followPage` events (`catchUp` when quiescent, else `followLog`);
    /// true when it took a whole page, so more may wait for the next turn.
    ///
    /// The fleet is never left on a page's end, though: commands and the clock's events would be
    /// numbered there, on seqs the log holds. It is moved the rest of the way at once, taking only
    /// the events of the navigators it leads (none, but for a lost batch of its own) and skipping
    /// the others, which costs their reading and not their fold.
    func followStep() throws(StoreError) -> Bool {
        let moving = isQuiescent
        guard try follow(movingFleet: moving, limit: Self.followPage) == Self.followPage else { return false }
        if moving { try moveFleetToTheLogsEnd() }
        return true
    }

    private func moveFleetToTheLogsEnd() throws(StoreError) {
        var fleet = self.fleet
        try store.forEachEvent(after: fleet.lastSeq) { record throws(StoreError) in
            try Self.take(record, into: &fleet, applying: leads(record.navigator))
        }
        settle(fleet)
    }

    /// Takes `fleet`, moved past durable events only, as the fleet, all of it durable.
    private func settle(_ fleet: Fleet) {
        var fleet = fleet
        fleet.markDurable(through: fleet.lastSeq)
        self.fleet = fleet
        durableSeq = max(durableSeq, fleet.lastSeq)
    }

    /// Folds the events after the fold's position, at most `limit` of them; returns how many it read.
    @discardableResult
    private func follow(movingFleet: Bool, limit: Int? = nil) throws(StoreError) -> Int {
        guard var follower = logFold else { return 0 }
        // Taken out while it grows (what it took stays, even after an error: durable events, in
        // order): left in `logFold`, its first change would copy every navigator of the log.
        logFold = nil
        defer { logFold = follower }
        var fleet = self.fleet
        let from = movingFleet ? min(follower.lastSeq, fleet.lastSeq) : follower.lastSeq
        var read = 0
        let take = { (record: EventRecord) throws(StoreError) in
            read += 1
            if record.seq > follower.lastSeq {
                try Self.take(record, into: &follower, applying: true)
                self.logFoldDirty.insert(record.navigator)
            }
            // After the fleet's position, events are other daemons' (its own are in the fleet); a
            // navigator this daemon leads has no events but its own (the fence sees to it).
            if movingFleet, record.seq > fleet.lastSeq {
                try Self.take(record, into: &fleet, applying: self.leads(record.navigator))
            }
        }
        if let limit {
            for record in try store.events(after: from, navigator: nil, limit: limit) { try take(record) }
        } else {
            try store.forEachEvent(after: from, take)
        }
        if movingFleet { settle(fleet) }
        return read
    }

    /// Checkpoints of a log several daemons share are written by the leader of shard 0, from
    /// `logFold`, which holds every navigator (a daemon's fleet holds only its shards'): every
    /// `checkpointEvery` events of the log, the navigators changed since the last one. They are
    /// durable already, so they are saved at once; a restart of any daemon folds from them.
    func checkpointLogFold() {
        guard led[0] != nil, let fold = logFold, fold.lastSeq - lastCheckpointSeq >= Int64(options.checkpointEvery)
        else { return }
        var snapshots = logFoldDirty.compactMap { name -> Snapshot? in
            guard let s = fold.navigators[name] else { return nil }
            return Snapshot(navigator: name, seq: fold.lastSeq, revision: s.revision, state: s.json)
        }
        snapshots.append(
            Snapshot(
                navigator: Self.checkpointMarker, seq: fold.lastSeq, revision: 0,
                state: ["frame": .int(fold.lastFrame), "time": .int(fold.lastTime)]))
        logFoldDirty.removeAll(keepingCapacity: true)
        lastCheckpointSeq = fold.lastSeq
        stats.checkpoints += 1
        actions.append(.saveSnapshots(seq: fold.lastSeq, snapshots))
    }

    /// Applies `record` to the fleet and returns it with its digest, or only moves past it (nil).
    @discardableResult
    static func take(_ record: EventRecord, into fleet: inout Fleet, applying: Bool) throws(StoreError) -> EventRecord?
    {
        guard applying else {
            fleet.skip(record)
            return nil
        }
        do throws(CoreError) { return try fleet.apply(record) } catch {
            throw StoreError(kind: .invalidData, message: "The log cannot be folded: \(error.message)")
        }
    }

    // MARK: Taking and giving up shards

    /// Folds the shard's navigators from the log and resolves their in-flight transitions as
    /// recovery does at start: animating ones complete at their scheduled frame (the next frame
    /// close finds them due), interactive ones lost their gesture and are cancelled with reason
    /// `recovery` at the first frame not ticked yet.
    func takeOver(_ shard: Int, epoch: Int64, now: Int64) {
        guard let shards = options.shards else { return }
        let started = timer.monotonic()
        var names: [String] = []
        var held: Int64 = 0
        var previous: Int64?
        do {
            try catchUp()
            // The previous leader may have ticked the shard's navigators up to its lease, on a clock
            // ahead of this one: this daemon's frames start after it, before the shard joins them.
            if lease != nil { previous = try FrameLease.read(from: store, shard: shard) }
            if let previous, previous > fleet.closedFrame {
                held = previous - fleet.closedFrame
                holdFrames(through: previous)
            }
            for (name, state) in logFold?.navigators ?? [:]
            where shards.shard(of: name) == shard && fleet.navigators[name] == nil {
                fleet.restore(state, seq: fleet.lastSeq, frame: state.frame, time: 0)
                names.append(name)
            }
        } catch {
            for name in names { fleet.forget(name) }
            log(.error, "Could not fold shard \(shard) from the log (\(error)); giving it up for another daemon.")
            actions.append(.giveUp([shard]))
            return
        }
        led[shard] = epoch
        if let previous { endTransitionsNobodyTicked(of: Set(names), after: previous) }
        leaseShards()
        let frame = max(fleet.closedFrame, clock.frame(atOrBefore: now)) + 1
        let events = fleet.recover(atFrame: frame, only: Set(names))
        for name in names { dirty.insert(name) }
        submitClockEvents(events)
        let ms = (timer.monotonic() - started) / 1_000_000
        log(
            .notice,
            "Took shard \(shard) (epoch \(epoch)): \(names.count.counted("navigator")) folded from the log at seq "
                + "\(fleet.lastSeq) in \(ms) ms, \(events.count.counted("interactive transition")) cancelled for recovery"
                + (held > 0
                    ? ", \(held.counted("frame")) passed over to start after the previous leader's frame lease." : "."))
    }

    /// A taken shard's navigators join at this daemon's last closed frame, which may be past the
    /// previous leader's lease: a graceful stop cuts that back to the last frame it closed, and this
    /// daemon's loop went on closing frames until the takeover. A transition of theirs that ended in
    /// between was ticked by nobody: its end is decided now, at its own frame (never before the log's
    /// last), and its final tick held for the lease (`publishHeldFinals`), as a passed-over frame's
    /// is. Frames at or before the previous lease are its leader's, and the interactive transitions
    /// are recovery's to cancel.
    func endTransitionsNobodyTicked(of names: Set<String>, after previous: Int64) {
        guard !names.isEmpty, fleet.closedFrame > previous else { return }
        var finals: [Tick] = []
        // Only the joined ones spared: recovery cancels them, which clears the due-frame cache their
        // sparing leaves short (this daemon's own interactive ones would otherwise never time out).
        let events = fleet.advance(
            toFrame: fleet.closedFrame, joined: (names, previous),
            sparing: fleet.interactiveNavigators.intersection(names)
        ) { if $0.frame > previous { finals.append($0) } }
        submitClockEvents(events)
        guard !finals.isEmpty else { return }
        // Not before a lease write names the shard: a daemon that took it after a crash of this one
        // would read the old lease again, and tick these ends a second time.
        lease?.revoke(after: previous)
        let seq = fleet.lastSeq
        // Behind the finals held already, in frame order (`publishHeldFinals` takes them so).
        heldFinals = (heldFinals + finals.map { ($0, seq) }).enumerated()
            .sorted { ($0.element.tick.frame, $0.offset) < ($1.element.tick.frame, $1.offset) }.map(\.element)
        fleet.prune(after: fleet.closedFrame)
    }

    /// Forgets the shards' navigators: their commands get `moved` from now on.
    func stepDown(_ shards: [Int], reason: String) {
        guard let map = options.shards else { return }
        let lost = Set(shards).intersection(led.keys)
        guard !lost.isEmpty else { return }
        for shard in lost { led[shard] = nil }
        leaseShardsLeft()
        let names = fleet.navigators.keys.filter { lost.contains(map.shard(of: $0)) }
        for name in names {
            fleet.forget(name)
            dirty.remove(name)
        }
        // Their final ticks held for the lease are the new leader's to tick: the leases written
        // from now on cover only the shards still led.
        heldFinals.removeAll { lost.contains(map.shard(of: $0.tick.navigator)) }
        log(
            .warning,
            "Stepped down for shard(s) \(lost.sorted().map(String.init).joined(separator: ", ")): \(reason); "
                + "\(names.count.counted("navigator")) left to their new leader.")
    }

    /// Whether a failed append was refused because this daemon no longer leads a shard of it.
    static func isFenced(_ error: StoreError) -> Bool { error.sqlState == SQLState.fenced }

    /// Whether a failed append lost the race for the next seqs to another daemon: at the fence, at
    /// the seq's key, waiting for another loser's turn, or at the writer's numbering, whose end another daemon's events moved past
    /// the daemon's (read when the writer's session was made again). A revision out of step is no
    /// race (the fence keeps other daemons off the navigators this one leads): it stays a failure.
    static func isLogMoved(_ error: StoreError) -> Bool {
        error.lostTheLogsRace || UnitNumbering.isSeqMismatch(error)
    }
}
