/// What the subscribers of one XPUB socket subscribed to under one root topic, from the socket's
/// subscription frames (`\x01topic` / `\x00topic`), so the loop encodes a tick only for a topic that
/// somebody takes: libzmq drops a message nobody subscribed to, but only after it was encoded and sent.
///
/// libzmq passes a topic's first subscription and its last unsubscription (not `ZMQ_XPUB_VERBOSE`),
/// and a disconnected subscriber's topics as unsubscriptions; counting each topic keeps this right
/// even if a topic comes twice.
struct Subscriptions {
    let root: [UInt8]
    private var counts: [[UInt8]: Int] = [:]
    /// A subscription takes every topic under `root`: it is a prefix of it (`""`, `t`, …, `tick/`).
    private(set) var coversRoot = false
    /// Subscriptions under `root` that take some of its topics (`tick/main/`).
    private(set) var narrower: [[UInt8]] = []

    init(root: String) { self.root = Array(root.utf8) }

    /// No topic under `root` is subscribed.
    var isEmpty: Bool { !coversRoot && narrower.isEmpty }

    /// Whether a message on `topic` (under `root`) reaches some subscriber.
    func takes(_ topic: [UInt8]) -> Bool { coversRoot || narrower.contains { topic.starts(with: $0) } }

    /// Applies one frame read from the socket; returns +1 for a subscription, -1 for an
    /// unsubscription, 0 for anything else (any topic: `stats` counts them all).
    mutating func apply(_ frame: [UInt8]) -> Int {
        guard let kind = frame.first, kind <= 1 else { return 0 }
        let topic = Array(frame.dropFirst())
        if kind == 1 {
            counts[topic, default: 0] += 1
        } else if let count = counts[topic] {
            counts[topic] = count > 1 ? count - 1 : nil
        }
        coversRoot = counts.keys.contains { root.starts(with: $0) }
        narrower = counts.keys.filter { $0.count > root.count && $0.starts(with: root) }
        return kind == 1 ? 1 : -1
    }
}
