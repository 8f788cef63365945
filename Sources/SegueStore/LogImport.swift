import SegueCore

/// What an import needs of a backend's writer: one transaction that takes the log's units a part at
/// a time, so that a file of any size is appended all or none while only one part is held.
package protocol ImportTransaction {
    /// The last committed `seq`.
    var lastSeq: Int64 { get }
    /// The navigator's last stored revision (0 for one the log does not hold).
    func lastRevision(of navigator: String) throws(StoreError) -> Int64
    func beginImport() throws(StoreError)
    /// Appends `units` in the open transaction; any unit that cannot be stored fails the call.
    func appendImportPart(_ units: [AppendUnit]) throws(StoreError)
    /// Commits the transaction; after a failure nothing of it is in the log.
    func commitImport() throws(StoreError)
    /// Undoes the open transaction (after a failure of the import's own).
    func rollbackImport()
}

/// Appends a JSON Lines export to a log: the rules `segue import` and `segue migrate` follow on
/// either backend.
package enum LogImport {
    /// Events appended per statement batch: memory stays at about this many events.
    package static let eventsPerPart = 4096
    /// The most events in a unit without a command id: the writers' numbering check looks back through
    /// a unit's events for each navigator, so a unit of a part's size would cost its square.
    static let unitLimit = 16

    /// Appends the events of the JSON Lines file at `path`, and `commands` with them, all or none, in
    /// one transaction; returns the count of events.
    ///
    /// The file must continue the log: its first seq is `lastSeq + 1` (1 for a fresh store), seqs
    /// are gapless, and every navigator's revisions continue from its last stored one. The first
    /// line that breaks a rule (or is not an event) is reported with its 1-based line number, and
    /// nothing is kept. `progress` is told the count of events appended so far after each part.
    package static func run(
        _ path: String, commands: [CommandRecord], into writer: some ImportTransaction,
        progress: (Int) -> Void = { _ in }
    ) throws(StoreError) -> Int {
        var cutter = try UnitCutter(commands: commands, pendingLimit: unitLimit)
        var continuity = Continuity(after: writer.lastSeq)
        var part = cutter.eventless
        var events = 0
        var count = 0
        try writer.beginImport()
        do throws(StoreError) {
            try EventLines.forEach(in: path) { line, event throws(StoreError) in
                try continuity.check(event, line: line, lastRevision: writer.lastRevision)
                count += 1
                guard let unit = cutter.add(event) else { return }
                part.append(unit)
                events += unit.events.count
                if events >= eventsPerPart {
                    try writer.appendImportPart(part)
                    part.removeAll(keepingCapacity: true)
                    events = 0
                    progress(count)
                }
            }
            if let rest = try cutter.finish() { part.append(rest) }
            if !part.isEmpty { try writer.appendImportPart(part) }
        } catch {
            writer.rollbackImport()
            throw error
        }
        try writer.commitImport()
        return count
    }

    /// Checks that events, one after another, continue a log: seqs gapless from its end, and each
    /// navigator's revisions from its last stored one.
    package struct Continuity {
        private var seq: Int64
        private var revisions: [String: Int64] = [:]

        package init(after lastSeq: Int64) { seq = lastSeq }

        package mutating func check(
            _ event: EventRecord, line: Int, lastRevision: (String) throws(StoreError) -> Int64
        ) throws(StoreError) {
            guard event.seq == seq + 1 else {
                throw StoreError(
                    kind: .outOfSequence,
                    message: "Line \(line) has seq \(event.seq), but the log continues at seq \(seq + 1).", line: line)
            }
            let last: Int64
            if let known = revisions[event.navigator] { last = known } else { last = try lastRevision(event.navigator) }
            guard event.revision == last + 1 else {
                throw StoreError(
                    kind: .outOfSequence,
                    message: "Line \(line) has revision \(event.revision) for navigator \"\(event.navigator)\", "
                        + "but that navigator continues at revision \(last + 1).", line: line)
            }
            revisions[event.navigator] = event.revision
            seq = event.seq
        }
    }
}
