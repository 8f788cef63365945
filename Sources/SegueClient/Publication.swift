import SegueCore

/// One message from the daemon's publish socket (docs/protocol.md, "Sockets"), decoded, with the body's exact bytes.
public enum Publication: Equatable, Sendable {
    case event(EventRecord)
    case tick(PublishedTick)
    /// `hb/`: frame, time, seq, navigators, version.
    case heartbeat(JSONObject)

    /// Reads a `(topic, body)` pair; the topic decides the kind.
    public init(topic: [UInt8], body: [UInt8]) throws(SegueClientError) {
        let topic = String(decoding: topic, as: UTF8.self)
        let json: JSON
        do { json = try JSON.parse(body) } catch { throw .malformed("\(topic) body: \(error.description)") }
        if topic.hasPrefix("event/") {
            do { self = .event(try EventRecord(json: json)) } catch {
                throw .malformed("\(topic) body: \(error.message)")
            }
        } else if topic.hasPrefix("tick/") {
            self = .tick(try PublishedTick(json, bytes: body))
        } else if topic.hasPrefix("hb/"), let object = json.objectValue {
            self = .heartbeat(object)
        } else {
            throw .malformed("a publication on unknown topic \(topic)")
        }
    }
}

/// A tick as published: the fields a viewer needs, and the body's bytes (replay compares those).
public struct PublishedTick: Equatable, Sendable {
    public var navigator: String
    public var transition: Int
    public var operation: String
    public var frame: Int64
    public var phase: String
    public var fraction: Double
    public var progress: Double
    public var revision: Int64
    public var final: Bool
    public var json: JSONObject
    /// The body exactly as the daemon serialized it.
    public var bytes: [UInt8]

    public init(_ json: JSON, bytes: [UInt8]) throws(SegueClientError) {
        guard let o = json.objectValue, let navigator = o["navigator"]?.stringValue,
            let transition = o["transition"]?.int64Value, let frame = o["frame"]?.int64Value,
            let phase = o["phase"]?.stringValue, let fraction = o["fraction"]?.doubleValue,
            let progress = o["progress"]?.doubleValue
        else { throw .malformed("a tick without navigator, transition, frame, phase, fraction and progress") }
        self.navigator = navigator
        self.transition = Int(transition)
        self.operation = o["operation"]?.stringValue ?? ""
        self.frame = frame
        self.phase = phase
        self.fraction = fraction
        self.progress = progress
        self.revision = o["revision"]?.int64Value ?? 0
        self.final = o["final"]?.boolValue ?? false
        self.json = o
        self.bytes = bytes
    }
}
