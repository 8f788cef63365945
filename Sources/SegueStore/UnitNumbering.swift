import SegueCore

/// The numbering check every writer runs before it writes a unit: `seq` right after the log,
/// `revision` right after the navigator's, the same rules and messages whatever the backend.
///
/// The fleet numbers events (it publishes them); the store only checks continuity. Revisions
/// accepted into the open transaction are kept apart (`pending`) until the unit is written, so a
/// rejected unit changes nothing; a failed batch forgets every revision and remembers its error,
/// so that units numbered on top of it fail with that error rather than a puzzling gap.
package struct UnitNumbering {
    /// Last committed (or accepted in the open transaction) revision per navigator, filled lazily:
    /// reading every navigator at open would scan an index of the whole log.
    private var revisions: [String: Int64] = [:]
    /// The revisions the unit being checked brings; reused across units to save an allocation each.
    private var pending: [(navigator: String, revision: Int64)] = []
    /// The error of the last failed batch, while callers still submit units numbered on top of it.
    private var cascade: StoreError?
    /// Why a unit of the open batch did not continue the log: the units after it in the batch were
    /// numbered on top of it.
    private var refusedInBatch: StoreError?

    package init() {}

    /// A batch begins: `check` takes its units in order.
    package mutating func beginBatch() { refusedInBatch = nil }

    /// Why `unit` cannot follow `seq` and the revisions accepted so far, or nil; then its revisions
    /// wait in `pending` for `accept`. `lastRevision` reads a navigator's last stored revision.
    ///
    /// After a unit of the batch is refused, so is every later one, even one that fits: it was
    /// numbered on top of the refused one, and fits only when the writer's end is past what the
    /// caller knew (another writer's events on a shared log, a lost outcome read back). Taken, it
    /// would build on events the log does not hold, with times from before those it does.
    package mutating func check(
        _ unit: AppendUnit, after seq: Int64, lastRevision: (String) throws(StoreError) -> Int64
    ) throws(StoreError) -> StoreError? {
        if let refusedInBatch {
            return StoreError(
                kind: .outOfSequence,
                message: "Not stored: it was numbered after an append of the same batch that was refused "
                    + "(\(refusedInBatch.message))")
        }
        let problem = try numberingProblem(unit, after: seq, lastRevision: lastRevision)
        refusedInBatch = problem
        return problem
    }

    private mutating func numberingProblem(
        _ unit: AppendUnit, after seq: Int64, lastRevision: (String) throws(StoreError) -> Int64
    ) throws(StoreError) -> StoreError? {
        pending.removeAll(keepingCapacity: true)
        for (offset, event) in unit.events.enumerated() {
            let expected = seq + 1 + Int64(offset)
            guard event.seq == expected else { return misnumbered(event, expected: expected) }
            let last: Int64
            if !pending.isEmpty, let known = pending.last(where: { $0.navigator == event.navigator }) {
                last = known.revision
            } else if let known = revisions[event.navigator] {
                last = known
            } else {
                last = try lastRevision(event.navigator)
                revisions[event.navigator] = last
            }
            guard event.revision == last + 1 else {
                return StoreError(
                    kind: .outOfSequence,
                    message: "Event seq \(event.seq) has revision \(event.revision) for navigator "
                        + "\"\(event.navigator)\", whose next revision is \(last + 1). Renumber and resubmit.")
            }
            pending.append((event.navigator, event.revision))
        }
        return nil
    }

    private func misnumbered(_ event: EventRecord, expected: Int64) -> StoreError {
        if let cascade, event.seq > expected {
            return StoreError(
                kind: cascade.kind, extendedCode: cascade.extendedCode, sqlState: cascade.sqlState,
                message: "Not stored: an earlier append it was numbered after failed (\(cascade.message)).",
                sql: cascade.sql)
        }
        return StoreError(
            kind: .outOfSequence,
            message: "Event seq \(event.seq) \(Self.seqMismatch), whose next seq is \(expected). "
                + "Renumber from the store's lastSeq and resubmit.")
    }

    private static let seqMismatch = "does not continue the log"

    /// Whether `error` is this check's refusal of a unit whose first seq is not the log's next (not
    /// of a revision out of step, nor of a unit after a refused one).
    package static func isSeqMismatch(_ error: StoreError) -> Bool {
        error.kind == .outOfSequence && error.message.hasPrefix("Event seq ") && error.message.contains(seqMismatch)
    }

    /// The checked unit is in the transaction: its revisions count for the units after it.
    package mutating func accept() {
        for update in pending { revisions[update.navigator] = update.revision }
    }

    /// The batch committed; `accepted` when it wrote at least one unit (which ends a cascade).
    package mutating func committed(accepted: Bool) {
        if accepted { cascade = nil }
    }

    /// The batch failed with `error` and was rolled back: forget the revisions it accepted.
    package mutating func failed(_ error: StoreError) {
        cascade = error
        revisions = [:]
    }

    /// The navigators of `units` whose last revision is not known yet, each once: a writer whose
    /// lookups cost a round trip reads them all in one before `check`.
    package func unknownNavigators(in units: ArraySlice<AppendUnit>) -> [String] {
        var seen = Set<String>()
        for unit in units {
            for event in unit.events where revisions[event.navigator] == nil { seen.insert(event.navigator) }
        }
        return seen.sorted()
    }

    /// Forgets every cached revision (a new connection may see a log another writer changed).
    package mutating func forgetRevisions() { revisions = [:] }
}
