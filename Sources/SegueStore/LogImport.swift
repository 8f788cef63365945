import SegueCore

/// What an import needs of a backend's writer: one transaction that takes the log's events, then
/// its stored commands, a part at a time, so that a log of any size is appended all or none while
/// only one part is held.
package protocol ImportTransaction {
    /// The last committed `seq`.
    var lastSeq: Int64 { get }
    /// The navigator's last stored revision (0 for one the log does not hold).
    func lastRevision(of navigator: String) throws(StoreError) -> Int64
    func beginImport() throws(StoreError)
    /// Appends `units` in the open transaction; any unit that cannot be stored fails the call.
    func appendImportPart(_ units: [AppendUnit]) throws(StoreError)
    /// Stores `records` as they are in the open transaction; an id already stored fails the call.
    func appendImportCommands(_ records: [CommandRecord]) throws(StoreError)
    /// Two stored commands that end at the same seq (the lowest such), as the open transaction sees
    /// the log; nil when there are none.
    func commandsSharingASeq() throws(StoreError) -> (seq: Int64, ids: (String, String))?
    /// Commits the transaction; after a failure nothing of it is in the log.
    func commitImport() throws(StoreError)
    /// Undoes the open transaction (after a failure of the import's own).
    func rollbackImport()
}

/// Appends a JSON Lines export to a log: the rules `segue import` and `segue migrate` follow on
/// either backend.
package enum LogImport {
    /// Events (and then commands) appended per statement batch: memory stays at about this many.
    package static let eventsPerPart = 4096
    /// Events per unit: the writers' numbering check looks back through a unit's events for each
    /// navigator, so a unit of a part's size would cost its square.
    static let unitLimit = 16

    /// Appends the events of the JSON Lines file at `path`, then the stored `commands` (another log's
    /// rows, as `segue migrate` copies them), all or none, in one transaction; returns the count of
    /// events.
    ///
    /// The file must continue the log: its first seq is `lastSeq + 1` (1 for a fresh store), seqs
    /// are gapless, and every navigator's revisions continue from its last stored one. The first
    /// line that breaks a rule (or is not an event) is reported with its 1-based line number, and
    /// nothing is kept; so is a command whose id is stored already, that ends at a seq the log does
    /// not have, or at the seq another command ends at. `progress` is told the count of events
    /// appended so far after each part.
    package static func run(
        _ path: String, commands: some CommandSequence, into writer: some ImportTransaction,
        progress: (Int) -> Void = { _ in }
    ) throws(StoreError) -> Int {
        var continuity = Continuity(after: writer.lastSeq)
        var count = 0
        try writer.beginImport()
        do throws(StoreError) {
            var part: [AppendUnit] = []
            var unit: [EventRecord] = []
            var events = 0
            try EventLines.forEach(in: path) { line, event throws(StoreError) in
                try continuity.check(event, line: line, lastRevision: writer.lastRevision)
                count += 1
                unit.append(event)
                guard unit.count == unitLimit else { return }
                part.append(AppendUnit(events: unit))
                unit.removeAll(keepingCapacity: true)
                events += unitLimit
                guard events >= eventsPerPart else { return }
                try writer.appendImportPart(part)
                part.removeAll(keepingCapacity: true)
                events = 0
                progress(count)
            }
            if !unit.isEmpty { part.append(AppendUnit(events: unit)) }
            if !part.isEmpty { try writer.appendImportPart(part) }
            try appendCommands(commands, endingBy: continuity.seq, writer)
        } catch {
            writer.rollbackImport()
            throw error
        }
        try writer.commitImport()
        return count
    }

    /// Stores `commands` a part at a time, each checked against the log ending at `lastSeq`.
    private static func appendCommands(
        _ commands: some CommandSequence, endingBy lastSeq: Int64, _ writer: some ImportTransaction
    ) throws(StoreError) {
        var part: [CommandRecord] = []
        try commands.forEachCommandRecord(pageSize: eventsPerPart) { command throws(StoreError) in
            if let seq = command.seq, seq < 1 || seq > lastSeq {
                throw StoreError(
                    kind: .invalidData,
                    message: "Command \"\(command.id)\" ends at seq \(seq), which is not an event of the log.")
            }
            part.append(command)
            guard part.count == eventsPerPart else { return }
            try writer.appendImportCommands(part)
            part.removeAll(keepingCapacity: true)
        }
        if !part.isEmpty { try writer.appendImportCommands(part) }
        if let (seq, (first, second)) = try writer.commandsSharingASeq() {
            throw StoreError(
                kind: .invalidData,
                message:
                    "Commands \"\(first)\" and \"\(second)\" both end at seq \(seq); each event belongs to one command."
            )
        }
    }

    /// Checks that events, one after another, continue a log: seqs gapless from its end, and each
    /// navigator's revisions from its last stored one.
    package struct Continuity {
        /// The last seq checked (the log's end before the first).
        private(set) var seq: Int64
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
