import SegueCore
import SegueProtocol
import SegueStore

/// What the engine core asks its loop to do; the loop performs each, in order, and does nothing else.
///
/// Replies and publications come out only once the log is durable up to what they show: the core
/// holds them back until a `.committed` input says so.
enum EngineAction {
    /// Replies on the command socket and events or heartbeats on the publish socket, in one batch (no
    /// copy per message): the replies first, since their clients are waiting on them and ZeroMQ gives
    /// no order across the two sockets anyway; each socket's messages in seq order.
    case send([Outbox.Message])
    /// A frame's ticks on the publish sockets, to encode now in the forms subscribed to: the common
    /// case of a frame with nothing waiting, where a body per tick would be an allocation per tick.
    /// One action a frame, whose array the loop hands back for the next (`EngineCore.recycle`).
    case publishTicks([Tick])
    /// Commits one loop turn's units in one transaction (on the loop's thread when the writer is
    /// idle, else through the group committer); each unit's result comes back as a `.committed`
    /// input carrying `epoch` and the unit's last seq.
    case append([AppendUnit], epoch: Int)
    /// After an append lost the race for the log's next seqs and its commands were decided again:
    /// the store gives back the log's turn it took, behind the appends before it.
    case yieldLogTurn
    /// Saves a checkpoint's snapshots, off the loop's thread (nothing waits on it).
    case saveSnapshots(seq: Int64, [Snapshot])
    /// Writes a frame lease through `frame` for `shards` (nil: the whole log), each fenced by the
    /// epoch this daemon leads it under, off the loop's thread; the outcome comes back as a
    /// `.leased` input, and ticks past the old lease wait for it.
    case saveLease(frame: Int64, shards: [Int: Int64]?, generation: Int)
    /// Hands the loop's realtime policy back to helper threads started since (housekeeping).
    case confineHelperThreads
    /// Gives the heap's free pages back to the kernel (`HeapTrim.trim`), off the loop's thread: the
    /// daemon has gone quiet (`IdleTrim`).
    case trimHeap
    /// Counts the open file descriptors against the limit (`DescriptorWatch`), every few seconds.
    case checkDescriptors
    /// An append was refused by a shard's fence: the leadership thread checks its shards now.
    case checkLeadership
    /// Gives these shards up (their fold failed): the leadership thread releases their locks.
    case giveUp([Int])
    /// Stops the loop as a SIGTERM does, for a reason the core logged; segued then exits 78.
    case stop
    /// A log line at a level.
    case log(LogLevel, String)
}

extension EngineAction: Equatable {}

/// A tick's topic (`tick/<navigator>/`) and body, written into buffers reused from tick to tick.
struct TickWriter {
    private let encoder = TickEncoder()
    /// `Topic.tick(navigator:)` of the last `writeTopic`: its prefix stays from tick to tick, and only the
    /// navigator and the closing `/` are written again (a test holds the two spellings together).
    private(set) var topic: [UInt8] = Array(Topic.tickPrefix.utf8)
    private static let prefixCount = Topic.tickPrefix.utf8.count

    /// The body of the last `writeBody`; valid until the next.
    var body: UnsafeRawBufferPointer { encoder.body }

    /// The topic alone, for a look at who takes it before the body is encoded.
    mutating func writeTopic(_ tick: Tick) {
        topic.removeSubrange(Self.prefixCount...)
        var navigator = tick.navigator
        navigator.withUTF8 { topic.append(contentsOf: $0) }
        topic.append(UInt8(ascii: "/"))
    }

    mutating func writeBody(_ tick: Tick) { encoder.encode(tick) }
}
