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
    /// Whole topics under `root` (`tick/main/`, ending in `/`): a tick topic is taken by one of these
    /// only if it is that topic (navigator names hold no `/`), so one set lookup answers for all of
    /// them, however many navigators are watched one by one.
    private var whole: Set<[UInt8]> = []
    /// The other subscriptions under `root` (`tick/ma`): part of a name, rare, each compared.
    private var partial: [[UInt8]] = []

    init(root: String) { self.root = Array(root.utf8) }

    /// No topic under `root` is subscribed.
    var isEmpty: Bool { !coversRoot && whole.isEmpty && partial.isEmpty }

    /// Whether a message on `topic` (under `root`, ending in `/`) reaches some subscriber.
    func takes(_ topic: [UInt8]) -> Bool {
        coversRoot || whole.contains(topic) || partial.contains { topic.starts(with: $0) }
    }

    /// Applies one frame read from the socket; returns +1 for a subscription, -1 for an
    /// unsubscription, 0 for anything else (any topic: `stats` counts them all).
    mutating func apply(_ frame: [UInt8]) -> Int {
        guard let kind = frame.first, kind <= 1 else { return 0 }
        let topic = Array(frame.dropFirst())
        let before = counts[topic] ?? 0
        let after = kind == 1 ? before + 1 : max(0, before - 1)
        counts[topic] = after > 0 ? after : nil
        if (before > 0) != (after > 0) { file(topic, taken: after > 0) }
        return kind == 1 ? 1 : -1
    }

    /// Adds or removes a topic that came or went: in constant time for a whole topic, so that a
    /// frame's subscription frames cost no pass over every subscription.
    private mutating func file(_ topic: [UInt8], taken: Bool) {
        if root.starts(with: topic) {
            coversRoot = counts.keys.contains { root.starts(with: $0) }
        } else if topic.starts(with: root) {
            if topic.last == UInt8(ascii: "/") {
                if taken { whole.insert(topic) } else { whole.remove(topic) }
            } else if taken {
                partial.append(topic)
            } else {
                partial.removeAll { $0 == topic }
            }
        }
    }
}
