/// The replies of the last `capacity` commands applied under an id, so a retry is answered from
/// memory (even before its commit is durable); older ids are looked up in the store.
///
/// Oldest first out, in O(1) per command: insertion order is an array read from `head`, compacted
/// once its dead prefix is the larger half (`Array.removeFirst` on every command past the capacity
/// would move all 65,536 remembered ids each time).
struct RecentCommands {
    let capacity: Int
    private var byID: [String: PreviousCommand] = [:]
    private var order: [String] = []
    private var head = 0

    init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    subscript(id: String) -> PreviousCommand? { byID[id] }

    var count: Int { byID.count }
    /// Slots held by the order array, for tests of its compaction.
    var storage: Int { order.count }

    mutating func remember(_ id: String, _ command: PreviousCommand) {
        if byID.updateValue(command, forKey: id) == nil { order.append(id) }
        while order.count - head > capacity {
            // An id forgotten and remembered again has two slots; dropping the older one early only
            // sends a retry of it to the store.
            byID[order[head]] = nil
            head += 1
        }
        if head > 1024, head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
    }

    /// Forgets the commands whose events were not stored (a failed commit voids everything after the
    /// durable seq): their ids may be applied again.
    mutating func forget(after durableSeq: Int64) {
        for (id, command) in byID where command.seq > durableSeq { byID[id] = nil }
    }
}

/// A command applied under an id, as a retry needs it: the reply's bytes, the seq they wait for
/// (0 once durable) and the request's fingerprint (nil for commands stored before fingerprints).
struct PreviousCommand {
    var seq: Int64
    var body: [UInt8]
    var fingerprint: UInt64?
}
