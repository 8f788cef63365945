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

/// A log whose stored commands can be read a page at a time, in bytewise id order (the key's order
/// on both backends).
package protocol CommandSequence {
    /// The stored commands after `id` (from the first for nil), at most `limit`.
    func commandRecords(after id: String?, limit: Int) throws(StoreError) -> [CommandRecord]
}

extension CommandSequence {
    /// Calls `body` with every stored command in id order, holding one page of them.
    package func forEachCommandRecord(pageSize: Int = 4096, _ body: (CommandRecord) throws(StoreError) -> Void)
        throws(StoreError)
    {
        var cursor = CommandCursor(self, pageSize: pageSize)
        while let record = try cursor.next() { try body(record) }
    }

    /// Every stored command, in id order.
    package func commandRecords() throws(StoreError) -> [CommandRecord] {
        var records: [CommandRecord] = []
        try forEachCommandRecord { records.append($0) }
        return records
    }
}

/// Commands given whole (tests, small imports), read as a log's are.
extension Array: CommandSequence where Element == CommandRecord {
    package func commandRecords(after id: String?, limit: Int) throws(StoreError) -> [CommandRecord] {
        let sorted = self.sorted { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }
        guard let id else { return Array(sorted.prefix(limit)) }
        let start = sorted.firstIndex { id.utf8.lexicographicallyPrecedes($0.id.utf8) } ?? sorted.endIndex
        return Array(sorted[start...].prefix(limit))
    }
}

/// Reads a log's stored commands one at a time, in id order, a page at a time: what compares two
/// logs' commands in step.
package struct CommandCursor {
    private let base: any CommandSequence
    private let pageSize: Int
    private var page: [CommandRecord] = []
    private var index = 0
    private var atEnd = false

    package init(_ base: any CommandSequence, pageSize: Int = 4096) {
        self.base = base
        self.pageSize = pageSize
    }

    package mutating func next() throws(StoreError) -> CommandRecord? {
        if index == page.count {
            guard !atEnd else { return nil }
            let after = page.last?.id
            page = try base.commandRecords(after: after, limit: pageSize)
            index = 0
            atEnd = page.count < pageSize
            guard !page.isEmpty else { return nil }
        }
        defer { index += 1 }
        return page[index]
    }
}

/// A log's stored commands up to a seq: those of the events an export copied (and those that
/// appended nothing), when a daemon may still be writing the log.
package struct CommandsThrough: CommandSequence {
    package let base: any CommandSequence
    package let seq: Int64

    package init(_ base: any CommandSequence, seq: Int64) {
        self.base = base
        self.seq = seq
    }

    package func commandRecords(after id: String?, limit: Int) throws(StoreError) -> [CommandRecord] {
        var kept: [CommandRecord] = []
        var after = id
        while kept.count < limit {
            let page = try base.commandRecords(after: after, limit: limit)
            kept += page.lazy.filter { ($0.seq ?? 0) <= seq }.prefix(limit - kept.count)
            guard page.count == limit, let last = page.last else { break }
            after = last.id
        }
        return kept
    }
}
