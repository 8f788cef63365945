/// The topics of the publish socket (docs/protocol.md, "Sockets"): every message is a topic frame,
/// then a JSON body. A subscriber subscribes by prefix: `tick/main/` gets main's ticks, `tick/` all.
package enum Topic: Equatable, Hashable, Sendable {
    /// `event/<navigator>/`: the navigator's events, in seq order.
    case event(navigator: String)
    /// `tick/<navigator>/`: one tick per frame while a transition is in flight.
    case tick(navigator: String)
    /// `hb/`: the daemon's heartbeat.
    case heartbeat

    package static let eventPrefix = "event/"
    package static let tickPrefix = "tick/"
    package static let heartbeatTopic = "hb/"

    /// The subscription prefix for the events of `navigator`, or of every navigator.
    package static func events(of navigator: String? = nil) -> String { eventPrefix + scope(navigator) }
    /// The subscription prefix for the ticks of `navigator`, or of every navigator.
    package static func ticks(of navigator: String? = nil) -> String { tickPrefix + scope(navigator) }

    private static func scope(_ navigator: String?) -> String { navigator.map { $0 + "/" } ?? "" }

    package var string: String {
        switch self {
        case .event(let navigator): Self.events(of: navigator)
        case .tick(let navigator): Self.ticks(of: navigator)
        case .heartbeat: Self.heartbeatTopic
        }
    }

    package var bytes: [UInt8] { Array(string.utf8) }

    /// Writes the topic into `buffer` (emptied first): the tick path reuses one buffer per frame.
    package func write(into buffer: inout [UInt8]) {
        buffer.removeAll(keepingCapacity: true)
        switch self {
        case .event(let navigator): Self.append(Self.eventPrefix, navigator, to: &buffer)
        case .tick(let navigator): Self.append(Self.tickPrefix, navigator, to: &buffer)
        case .heartbeat: buffer.append(contentsOf: Self.heartbeatTopic.utf8)
        }
    }

    private static func append(_ prefix: String, _ navigator: String, to buffer: inout [UInt8]) {
        buffer.append(contentsOf: prefix.utf8)
        buffer.append(contentsOf: navigator.utf8)
        buffer.append(UInt8(ascii: "/"))
    }

    /// Reads a topic frame; nil for one this protocol does not publish.
    package init?(_ topic: some StringProtocol) {
        if topic == Self.heartbeatTopic {
            self = .heartbeat
        } else if let navigator = Self.navigator(in: topic, after: Self.eventPrefix) {
            self = .event(navigator: navigator)
        } else if let navigator = Self.navigator(in: topic, after: Self.tickPrefix) {
            self = .tick(navigator: navigator)
        } else {
            return nil
        }
    }

    package init?(bytes: [UInt8]) { self.init(String(decoding: bytes, as: UTF8.self)) }

    private static func navigator(in topic: some StringProtocol, after prefix: String) -> String? {
        guard topic.hasPrefix(prefix), topic.hasSuffix("/"), topic.count > prefix.count + 1 else { return nil }
        return String(topic.dropFirst(prefix.count).dropLast())
    }
}
