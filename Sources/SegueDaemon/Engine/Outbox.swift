import SegueWire

/// Everything the engine sends, held until the log is durable up to what it shows.
///
/// DESIGN.md §3: "a published tick or event never shows an effect that a crash could take back".
/// Each message waits for the seq it depends on; commits complete in seq order, so the outbox is a
/// FIFO released from the front as the durable seq advances.
struct Outbox {
    enum Message {
        /// A reply on the command socket: the envelope (routing id, and the delimiter for REQ) and the body.
        case reply(envelope: [[UInt8]], body: [UInt8], failure: [UInt8]?)
        case publish(topic: [UInt8], body: [UInt8])
    }

    private var pending: [(seq: Int64, message: Message)] = []
    private var head = 0

    var isEmpty: Bool { head == pending.count }
    var count: Int { pending.count - head }

    mutating func enqueue(_ message: Message, after seq: Int64) {
        pending.append((seq, message))
    }

    /// Removes and returns the messages whose seq is durable.
    mutating func release(durable: Int64) -> [Message] {
        var out: [Message] = []
        while head < pending.count, pending[head].seq <= durable {
            out.append(pending[head].message)
            head += 1
        }
        compact()
        return out
    }

    /// After a failed commit: everything not yet durable is void. Replies become their failure body
    /// (`unavailable`); publications are dropped, since what they showed never happened.
    mutating func voidUndurable() -> [Message] {
        var out: [Message] = []
        for (_, message) in pending[head...] {
            if case .reply(let envelope, _, let failure?) = message {
                out.append(.reply(envelope: envelope, body: failure, failure: nil))
            }
        }
        pending.removeAll(keepingCapacity: true)
        head = 0
        return out
    }

    private mutating func compact() {
        if head > 4096, head * 2 > pending.count {
            pending.removeFirst(head)
            head = 0
        } else if head == pending.count {
            pending.removeAll(keepingCapacity: true)
            head = 0
        }
    }
}
