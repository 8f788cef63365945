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

/// Cuts a log's events, read in seq order, into the units that carry its stored command ids as they
/// were stored: a command's unit ends at its `seq`, which is how the store records it (the last seq
/// of its unit), and a command that appended nothing is a unit of no events. Events that no command
/// ends among are handed on in units without an id once `pendingLimit` of them wait, so an import
/// holds at most that many events, however far apart the ids are.
package struct UnitCutter {
    /// The units of commands that appended nothing, to store before any event.
    package private(set) var eventless: [AppendUnit] = []
    private var ending: [Int64: CommandRecord] = [:]
    private var pending: [EventRecord] = []
    private let pendingLimit: Int

    /// Fails on a command id given twice, and on two commands ending at one seq: such rows could not
    /// be stored as they were read.
    package init(commands: [CommandRecord], pendingLimit: Int = .max) throws(StoreError) {
        self.pendingLimit = pendingLimit
        // A unit refused for a duplicate id would leave the others committed: no import at all.
        var ids = Set<String>()
        for command in commands where !ids.insert(command.id).inserted {
            throw StoreError(kind: .invalidData, message: "Command id \"\(command.id)\" appears twice.")
        }
        for command in commands {
            guard let seq = command.seq else {
                eventless.append(
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
    }

    /// Takes the next event; returns the unit it completes, if any.
    package mutating func add(_ event: EventRecord) -> AppendUnit? {
        pending.append(event)
        if let command = ending.removeValue(forKey: event.seq) {
            defer { pending.removeAll(keepingCapacity: true) }
            return AppendUnit(
                events: pending, commandID: command.id, navigator: command.navigator, reply: command.reply,
                fingerprint: command.fingerprint)
        }
        return pending.count >= pendingLimit ? takePending() : nil
    }

    /// After the last event: the events still waiting, as a unit without an id. Fails when a command
    /// ends at a seq no event had.
    package mutating func finish() throws(StoreError) -> AppendUnit? {
        if let (seq, command) = ending.min(by: { $0.key < $1.key }) {
            throw StoreError(
                kind: .invalidData,
                message: "Command \"\(command.id)\" ends at seq \(seq), which is not an event of the log.")
        }
        return takePending()
    }

    private mutating func takePending() -> AppendUnit? {
        guard !pending.isEmpty else { return nil }
        defer { pending.removeAll(keepingCapacity: true) }
        return AppendUnit(events: pending)
    }
}
