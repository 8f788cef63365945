import SegueCore

/// A row of the `commands` table whole: what `segue migrate` copies beside the events, so a retry of
/// a command applied before the move is still answered with its stored reply.
package struct CommandRecord: Sendable, Equatable {
    package var id: String
    package var navigator: String?
    /// The last seq of the command's events; nil for a command that appended none.
    package var seq: Int64?
    package var reply: JSON?
    package var fingerprint: UInt64?

    package init(id: String, navigator: String?, seq: Int64?, reply: JSON?, fingerprint: UInt64?) {
        self.id = id
        self.navigator = navigator
        self.seq = seq
        self.reply = reply
        self.fingerprint = fingerprint
    }
}

/// A log whose command ids can be read whole, in bytewise id order (the key's order on both backends).
package protocol CommandSequence {
    func commandRecords() throws(StoreError) -> [CommandRecord]
}

extension AppendUnit {
    /// `events` (a whole log, in seq order) cut into units that carry `commands` as they were
    /// stored: a command's unit ends at its `seq`, which is how the store records it (the last seq
    /// of its unit), and a command that appended nothing is a unit of no events.
    ///
    /// Fails on a command whose `seq` is no event's, or that another command already ends at: such
    /// a row could not be stored as it was read.
    package static func units(of events: [EventRecord], commands: [CommandRecord]) throws(StoreError)
        -> [AppendUnit]
    {
        var ending: [Int64: CommandRecord] = [:]
        var units: [AppendUnit] = []
        // A unit refused for a duplicate id would leave the others committed: no import at all.
        var ids = Set<String>()
        for command in commands where !ids.insert(command.id).inserted {
            throw StoreError(kind: .invalidData, message: "Command id \"\(command.id)\" appears twice.")
        }
        for command in commands {
            guard let seq = command.seq else {
                units.append(
                    AppendUnit(
                        events: [], commandID: command.id, navigator: command.navigator, reply: command.reply,
                        fingerprint: command.fingerprint))
                continue
            }
            if let other = ending.updateValue(command, forKey: seq) {
                throw StoreError(
                    kind: .invalidData,
                    message: "Commands \"\(other.id)\" and \"\(command.id)\" both end at seq \(seq); "
                        + "each event belongs to one command.")
            }
        }
        var start = events.startIndex
        for index in events.indices {
            guard let command = ending.removeValue(forKey: events[index].seq) else { continue }
            units.append(
                AppendUnit(
                    events: Array(events[start...index]), commandID: command.id, navigator: command.navigator,
                    reply: command.reply, fingerprint: command.fingerprint))
            start = index + 1
        }
        if let (seq, command) = ending.min(by: { $0.key < $1.key }) {
            throw StoreError(
                kind: .invalidData,
                message: "Command \"\(command.id)\" ends at seq \(seq), which is not an event of the log.")
        }
        if start < events.endIndex { units.append(AppendUnit(events: Array(events[start...]))) }
        return units
    }
}
