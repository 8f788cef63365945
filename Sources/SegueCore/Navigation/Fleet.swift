/// Every navigator of one log, with the log's position: the multi-navigator driver that the daemon
/// runs live and `segue replay` runs over a recorded log, so both produce the same ticks.
///
/// It numbers and stamps what the decider returns (global `seq`, per-navigator `revision`, `time`),
/// keeps frames and times from going backwards across the whole log, and tracks which navigators
/// have something in flight so an idle fleet costs nothing per frame.
package struct Fleet: Sendable {
    package let clock: FrameClock
    package private(set) var navigators: [String: NavigatorState] = [:]
    /// The last seq appended (0 for an empty log).
    package private(set) var lastSeq: Int64 = 0
    package private(set) var lastFrame: Int64 = 0
    package private(set) var lastTime: Int64 = 0
    /// The last frame whose ticks were taken (`closeFrame`): later commands take effect after it.
    package internal(set) var closedFrame: Int64 = -1
    /// Navigators with a transition, a queue or a final tick still to come, in the order they became
    /// active (a deterministic order for ticks).
    package internal(set) var active: [String] = []
    var isActive: Set<String> = []
    /// Active navigators that may have gone idle (a transition ended, a queued command was dropped,
    /// the navigator closed): what `prune` checks.
    var pruneCandidates: Set<String> = []
    /// No active navigator has anything for `advance` to do before this frame (the least of their
    /// `Navigator.nextDueFrame`), or `nil` when unknown. Any change to a navigator's state clears it,
    /// so a fleet whose transitions all run long animations skips `advance`'s scan frame after frame.
    var earliestDue: Int64?
    /// Undo entries (see `journaling`), oldest first: those of events not yet known durable, after
    /// the durable ones `releaseDurableJournal` has yet to drop.
    private(set) var journal: [(seq: Int64, name: String, previous: NavigatorState?)] = []
    /// The first `durableJournalEntries` entries are durable: `markDurable` only moves this, so that
    /// freeing the states they hold waits for `releaseDurableJournal`, after the commit's replies.
    private(set) var durableJournalEntries = 0
    /// Durable entries `markDurable` lets wait at most, whether or not anyone releases them.
    static let durableJournalLimit = 4096
    /// When set, every appended event records the state it replaced, so a failed commit can be
    /// rolled back to the durable seq without refolding the log.
    package var journaling = false
    /// Added to each tick's frame instant for its `presentAt`, ns: the daemon's `presentationDelay`.
    package var presentationDelay: Int64 = 0
    /// Each navigator's `StateDigest` at its current revision (final ticks reuse it) and the sum of
    /// their leading 64 bits, the fleet digest, kept up
    /// to date as navigators change (`Fleet+Digest.swift`).
    var digests: [String: (revision: Int64, digest: SHA256.Digest)] = [:]
    package internal(set) var digestSum: UInt64 = 0

    package init(clock: FrameClock) { self.clock = clock }

    package func state(of name: String) -> NavigatorState {
        navigators[name] ?? Navigator.initialState(name: name, clock: clock)
    }

    /// A navigator's revision and the phase of its transition in flight, read in place: a reply
    /// needs only these, and a lookup would copy the whole state out (retaining every member).
    /// Mutating only to reach the state through `inPlace` (and, for a fleet held in a class, to
    /// borrow the fleet instead of copying it for the call).
    package mutating func revisionAndPhase(of name: String) -> (revision: Int64, phase: TransitionPhase?)? {
        var found: (revision: Int64, phase: TransitionPhase?)?
        inPlace(name) { found = ($0.revision, $0.transitionStorage?.value.phase) }
        return found
    }

    // MARK: Folding a recorded log

    /// Applies an event read back from the log (rebuild, replay). Rejects a record that does not
    /// continue the log, so a damaged export fails loudly instead of folding into a wrong state.
    /// Returns the record with the digest of the state it leaves.
    @discardableResult
    package mutating func apply(_ record: EventRecord) throws(CoreError) -> EventRecord {
        do { return try applying(record) } catch {
            var error = error
            error.seq = record.seq
            throw error
        }
    }

    private mutating func applying(_ record: EventRecord) throws(CoreError) -> EventRecord {
        guard record.seq == lastSeq + 1 else {
            let problem =
                record.seq < 1
                ? "seqs count from 1"
                : record.seq > lastSeq + 1
                    ? "the log has a gap" : "seq \(record.seq) was already taken: an event repeated or out of order"
            throw CoreError(.internal, "Event seq \(record.seq) does not follow \(lastSeq); \(problem).")
        }
        let state = self.state(of: record.navigator)
        guard record.revision == state.revision + 1 else {
            throw CoreError(
                .internal,
                "Event \(record.seq) has revision \(record.revision) for \(record.navigator), expected \(state.revision + 1)."
            )
        }
        let event = try NavigationEvent(record: record)
        return commit(event, to: state, record: record)
    }

    /// Installs a navigator's snapshot (state as of `seq`), before applying the tail of the log.
    package mutating func restore(_ state: NavigatorState, seq: Int64, frame: Int64, time: Int64) {
        navigators[state.name] = state
        noteDigest(of: state.name, StateDigest.digest(of: state), revision: state.revision)
        earliestDue = nil
        pruneCandidates.insert(state.name)
        lastSeq = max(lastSeq, seq)
        lastFrame = max(lastFrame, frame)
        lastTime = max(lastTime, time)
        touch(state.name)
    }

    /// Drops a navigator entry used only to carry a position (a checkpoint marker) during a rebuild.
    package mutating func forget(_ name: String) {
        navigators[name] = nil
        noteDigest(of: name, nil, revision: nil)
        active.removeAll { $0 == name }
        isActive.remove(name)
        pruneCandidates.remove(name)
    }

    // MARK: Running live

    /// The frame and time a command accepted at wall-clock `time` takes effect: never before the
    /// log's last time, and after the last frame whose ticks were taken.
    package func placement(forTime time: Int64) -> (frame: Int64, time: Int64) {
        var t = max(time, lastTime)
        if closedFrame >= 0 { t = max(t, clock.instant(ofFrame: closedFrame) + 1) }
        return (clock.frame(atOrAfter: t), t)
    }

    /// What `execute` did: the clock's events that fell due first, then the command's events or its
    /// rejection. The clock's events stand even when the command is rejected.
    package struct Execution: Sendable {
        package var clockEvents: [EventRecord] = []
        package var events: [EventRecord] = []
        /// `events` as the decider returned them, so replies need not decode the records again.
        package var decided: [NavigationEvent] = []
        package var error: CoreError?
        package var frame: Int64 = 0
    }

    /// Decides a command for `navigator` accepted at wall-clock `time`, appending its events to the
    /// fleet (numbered and stamped).
    ///
    /// Close every frame up to `clock.frame(atOrBefore: time)` first, with the same `time`: a frame's
    /// ticks are taken from the state when it is closed, so a frame left open behind the command
    /// would show the command's effect a frame before the frame it is logged at.
    package mutating func execute(
        _ command: NavigationCommand, _ envelope: CommandEnvelope, navigator: String, time: Int64
    ) -> Execution {
        let (frame, stamped) = placement(forTime: time)
        var result = Execution(frame: frame)
        // This navigator's clock events up to the command's frame come first (a completion due in
        // this very frame lets the command through instead of answering busy).
        var due: [NavigationEvent] = []
        let floor = lastFrame
        inPlace(navigator) { due = Self.dueEvents($0, toFrame: frame, floor: floor) }
        for e in due {
            result.clockEvents.append(
                append(e, navigator: navigator, time: max(clock.instant(ofFrame: e.frame), lastTime)))
        }
        do {
            let previous = navigators[navigator]
            let before = previous ?? Navigator.initialState(name: navigator, clock: clock)
            // Each event's digest is of the state it leaves, taken as the decider folds it.
            var digests: [SHA256.Digest] = []
            // A non-animated stack change decides two events: one allocation for both digests.
            digests.reserveCapacity(2)
            let (decided, after) = try Navigator.decideFolding(command, envelope, state: before, frame: frame) {
                digests.append(StateDigest.digest(of: $0))
            }
            result.decided = decided
            result.events = append(
                decided, navigator: navigator, previous: previous, revision: before.revision, after: after,
                digests: digests, time: max(stamped, lastTime))
        } catch {
            result.error = error
        }
        return result
    }

    /// Events decided at restart (docs/design.md, "Recovery"): interactive transitions cancelled with `recovery`.
    /// `only`: just these navigators (a shard taken over from another daemon).
    package mutating func recover(atFrame frame: Int64, only: Set<String>? = nil) -> [EventRecord] {
        var records: [EventRecord] = []
        for name in active where only?.contains(name) ?? true {
            let state = navigators[name]!
            for e in Navigator.recover(state, atFrame: max(frame, lastFrame)) {
                records.append(append(e, navigator: name, time: max(clock.instant(ofFrame: e.frame), lastTime)))
            }
        }
        return records
    }

    // MARK: Durability

    /// Marks the undo entries of events up to `seq` durable; `releaseDurableJournal` frees them.
    package mutating func markDurable(through seq: Int64) {
        // Seqs read in place: `journal[i].seq` copied the whole entry, state and all, per step.
        let start = durableJournalEntries
        durableJournalEntries = journal.withUnsafeBufferPointer { entries in
            entries[start...].firstIndex { $0.seq > seq } ?? entries.count
        }
        if durableJournalEntries > Self.durableJournalLimit { releaseDurableJournal() }
    }

    /// Frees the undo entries `markDurable` marked durable (the daemon's loop: after the replies).
    package mutating func releaseDurableJournal() {
        let drop = durableJournalEntries
        durableJournalEntries = 0
        if drop == journal.count {
            journal.removeAll(keepingCapacity: true)
        } else if drop > 0 {
            journal.removeFirst(drop)
        }
    }

    /// Undoes every event after `seq` (a failed commit): navigators return to their durable states
    /// and the next event is numbered `seq + 1` again. Frames and times keep their high-water marks,
    /// so the log never goes backwards.
    package mutating func rollback(to seq: Int64) {
        while journal.count > durableJournalEntries, let last = journal.last, last.seq > seq {
            journal.removeLast()
            navigators[last.name] = last.previous
            noteDigest(
                of: last.name, last.previous.map(StateDigest.digest(of:)), revision: last.previous?.revision)
            earliestDue = nil
            pruneCandidates.insert(last.name)
            touch(last.name)
        }
        lastSeq = min(lastSeq, seq)
    }

    /// Moves the log's position past an event of a navigator this fleet does not hold (another
    /// daemon's shard, on a log several daemons share): later events are numbered after it, and
    /// frames and times keep their high-water marks.
    package mutating func skip(_ record: EventRecord) {
        skip(toSeq: record.seq, frame: record.frame, time: record.time)
    }

    package mutating func skip(toSeq seq: Int64, frame: Int64, time: Int64) {
        lastSeq = max(lastSeq, seq)
        lastFrame = max(lastFrame, frame)
        lastTime = max(lastTime, time)
    }

    /// Marks frames up to `frame` as closed without taking ticks (start-up, or a fleet rebuilt after
    /// its frames were already published).
    package mutating func skipFrames(through frame: Int64) {
        closedFrame = max(closedFrame, frame)
    }

    // MARK: Bookkeeping

    /// Runs `body` on a navigator's state without copying it out of the dictionary.
    mutating func inPlace(_ name: String, _ body: (inout NavigatorState) -> Void) {
        guard let index = navigators.index(forKey: name) else { return }
        body(&navigators.values[index])
    }

    mutating func append(_ event: NavigationEvent, navigator: String, time: Int64) -> EventRecord {
        let state = self.state(of: navigator)
        let record = event.record(seq: lastSeq + 1, navigator: navigator, revision: state.revision + 1, time: time)
        return commit(event, to: state, record: record)
    }

    /// Appends a command's events, whose fold the decider already computed (`after`, and `digests`,
    /// one per event, of the state each leaves): the same numbering, journal and bookkeeping as
    /// appending them one by one, with no second fold. `previous` is the navigator's entry before
    /// them (nil: not created yet), `revision` its revision.
    private mutating func append(
        _ events: [NavigationEvent], navigator: String, previous: NavigatorState?, revision: Int64,
        after: consuming NavigatorState, digests: [SHA256.Digest], time: Int64
    ) -> [EventRecord] {
        var records: [EventRecord] = []
        records.reserveCapacity(events.count)
        for offset in events.indices {
            // Through the index, not a bound copy of the event (a started one holds five screen lists
            // and an animator): the record's box is its one copy.
            var record = events[offset].record(
                seq: lastSeq + 1, navigator: navigator, revision: revision + 1 + Int64(offset), time: time)
            record.digestValue = .sha256(digests[offset])
            // Rolling back to any seq inside the unit restores the state before it, as the one-by-one
            // journal would have (a unit is committed whole, so that is the only rollback target).
            if journaling { journal.append((record.seq, navigator, previous)) }
            switch events[offset].kind {
            case .completed, .cancelled, .dropped, .closed: pruneCandidates.insert(navigator)
            default: break
            }
            lastSeq = record.seq
            lastFrame = max(lastFrame, record.frame)
            lastTime = max(lastTime, record.time)
            records.append(record)
        }
        if let digest = digests.last {
            let revision = after.revision
            navigators[navigator] = after
            noteDigest(of: navigator, digest, revision: revision)
            earliestDue = nil
            touch(navigator)
        }
        return records
    }

    private mutating func commit(_ event: NavigationEvent, to state: NavigatorState, record: EventRecord)
        -> EventRecord
    {
        if journaling { journal.append((record.seq, record.navigator, navigators[record.navigator])) }
        let next = Navigator.evolve(state, event)
        navigators[record.navigator] = next
        let digest = StateDigest.digest(of: next)
        noteDigest(of: record.navigator, digest, revision: next.revision)
        var record = record
        record.digestValue = .sha256(digest)
        earliestDue = nil
        switch event.kind {
        case .completed, .cancelled, .dropped, .closed: pruneCandidates.insert(record.navigator)
        default: break
        }
        lastSeq = record.seq
        lastFrame = max(lastFrame, record.frame)
        lastTime = max(lastTime, record.time)
        touch(record.navigator)
        return record
    }

    private mutating func touch(_ name: String) {
        guard !isActive.contains(name) else { return }
        var busy = false
        inPlace(name) { s in busy = s.hasTransition || !s.queue.isEmpty || !s.ended.isEmpty }
        if busy {
            isActive.insert(name)
            active.append(name)
        }
    }
}
