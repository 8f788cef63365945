/// The replies of the last commands applied under an id, so a retry is answered from memory (even
/// before its commit is durable); older ids are looked up in the store.
///
/// Bounded twice: at most `capacity` commands, and at most `byteLimit` bytes of replies and ids
/// (a reply echoes its screen's params, up to `limits.maxParamsBytes` each: 65,536 replies of 16 KiB
/// would hold 1 GiB). A command whose events are not durable yet is never dropped, whatever the
/// bounds: the filter of stored ids already holds its id, so a retry would be looked up in the store,
/// found new, and applied twice. Oldest first out, in O(1) per command: insertion order is an array
/// read from `head`, compacted once its dead prefix is the larger half (`Array.removeFirst` on every
/// command past the capacity would move all 65,536 remembered ids each time).
struct RecentCommands {
    let capacity: Int
    let byteLimit: Int
    private var byID: [String: PreviousCommand] = [:]
    private var order: [String] = []
    private var head = 0
    /// The bytes of every remembered reply and id.
    private(set) var bytes = 0

    init(capacity: Int, byteLimit: Int = 64 << 20) {
        precondition(capacity > 0 && byteLimit > 0)
        self.capacity = capacity
        self.byteLimit = byteLimit
    }

    subscript(id: String) -> PreviousCommand? { byID[id] }

    var count: Int { byID.count }
    /// Slots held by the order array, for tests of its compaction.
    var storage: Int { order.count }

    /// Remembers `command` under `id`, then drops the oldest while past a bound and their events are
    /// durable (at or before `durableSeq`).
    mutating func remember(_ id: String, _ command: PreviousCommand, durableSeq: Int64) {
        if let replaced = byID.updateValue(command, forKey: id) {
            bytes -= Self.size(id, replaced)
        } else {
            order.append(id)
        }
        bytes += Self.size(id, command)
        while head < order.count, order.count - head > capacity || bytes > byteLimit {
            let oldest = order[head]
            if let held = byID[oldest] {
                guard held.seq <= durableSeq else { break }
                // An id forgotten and remembered again has two slots; dropping the older one early
                // only sends a retry of it to the store.
                byID[oldest] = nil
                bytes -= Self.size(oldest, held)
            }
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
        for (id, command) in byID where command.seq > durableSeq {
            byID[id] = nil
            bytes -= Self.size(id, command)
        }
    }

    private static func size(_ id: String, _ command: PreviousCommand) -> Int { id.utf8.count + command.body.count }
}

/// A command applied under an id, as a retry needs it: the reply's bytes, the seq they wait for
/// (0 for a reply read from the store) and the request's fingerprint (nil for commands stored before
/// fingerprints).
struct PreviousCommand {
    var seq: Int64
    var body: [UInt8]
    var fingerprint: UInt64?
}
