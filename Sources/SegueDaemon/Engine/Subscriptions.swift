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
    /// How many topics taken are prefixes of `root` (`""`, `t`, …, `tick/`): each takes every topic
    /// under it. Counted, so that one coming or going costs no pass over the others.
    private var rootCovering = 0
    /// Whole topics under `root` (`tick/main/`, ending in `/`): a tick topic is taken by one of these
    /// only if it is that topic (navigator names hold no `/`), so one set lookup answers for all of
    /// them, however many navigators are watched one by one.
    private var whole: Set<[UInt8]> = []
    /// The other subscriptions under `root` (`tick/ma`, part of a name): rare, but a subscriber may
    /// send tens of thousands, so neither a tick nor an unsubscription passes over them all. A tick
    /// looks its topic's own prefixes up, of the lengths some of them have (`partialLengths`, how
    /// many there are of each length): at most as many lookups as a topic has bytes.
    private var partial: Set<ArraySlice<UInt8>> = []
    private var partialLengths: [Int] = []

    init(root: String) { self.root = Array(root.utf8) }

    /// A subscription takes every topic under `root`.
    var coversRoot: Bool { rootCovering > 0 }

    /// No topic under `root` is subscribed.
    var isEmpty: Bool { !coversRoot && whole.isEmpty && partial.isEmpty }

    /// Whether a message on `topic` (under `root`, ending in `/`) reaches some subscriber.
    func takes(_ topic: [UInt8]) -> Bool {
        if coversRoot || whole.contains(topic) { return true }
        guard !partial.isEmpty else { return false }
        // A partial topic is longer than `root` and shorter than the topic it is a prefix of.
        let longest = min(topic.count - 1, partialLengths.count - 1)
        guard longest > root.count else { return false }
        for length in (root.count + 1)...longest where partialLengths[length] > 0 {
            if partial.contains(topic[..<length]) { return true }
        }
        return false
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

    /// Adds or removes a topic that came or went, in constant time: a frame's subscription frames
    /// cost no pass over every subscription, however many there are.
    private mutating func file(_ topic: [UInt8], taken: Bool) {
        if root.starts(with: topic) {
            rootCovering += taken ? 1 : -1
        } else if topic.starts(with: root) {
            if topic.last == UInt8(ascii: "/") {
                if taken { whole.insert(topic) } else { whole.remove(topic) }
            } else if taken {
                partial.insert(topic[...])
                if partialLengths.count <= topic.count {
                    partialLengths += repeatElement(0, count: topic.count + 1 - partialLengths.count)
                }
                partialLengths[topic.count] += 1
            } else {
                partial.remove(topic[...])
                partialLengths[topic.count] -= 1
            }
        }
    }
}
