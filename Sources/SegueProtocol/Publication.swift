import SegueCore

/// One message from the daemon's publish socket (docs/protocol.md, "Sockets"), decoded, with the body's exact bytes.
public enum Publication: Equatable, Sendable {
    case event(EventRecord)
    case tick(PublishedTick)
    case heartbeat(Heartbeat)

    /// Reads a `(topic, body)` pair; the topic decides the kind. A body that does not decode is a
    /// `bad_request` naming the topic. Members the body has beyond those this build knows are
    /// ignored (docs/protocol.md, "Requests and replies"): a newer daemon may add some.
    public init(topic: [UInt8], body: [UInt8]) throws(WireError) {
        guard let kind = Topic(bytes: topic) else {
            throw WireError(.badRequest, "a publication on unknown topic \(String(decoding: topic, as: UTF8.self))")
        }
        let json: JSON
        do { json = try JSON.parse(body) } catch {
            throw WireError(.badRequest, "\(kind.string) body: \(error.description)")
        }
        switch kind {
        case .event:
            do { self = .event(try EventRecord(json: json, unknownMembers: .ignore)) } catch {
                throw WireError(.badRequest, "\(kind.string) body: \(error.message)")
            }
        case .tick: self = .tick(try PublishedTick(json, bytes: body))
        case .heartbeat: self = .heartbeat(try Heartbeat(json: json))
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

    public init(_ json: JSON, bytes: [UInt8]) throws(WireError) {
        guard let o = json.objectValue, let navigator = o["navigator"]?.stringValue,
            let transition = o["transition"]?.int64Value, let frame = o["frame"]?.int64Value,
            let phase = o["phase"]?.stringValue, let fraction = o["fraction"]?.doubleValue,
            let progress = o["progress"]?.doubleValue
        else {
            throw WireError(.badRequest, "a tick without navigator, transition, frame, phase, fraction and progress")
        }
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
