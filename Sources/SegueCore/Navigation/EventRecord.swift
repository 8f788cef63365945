/// One event as it is stored, published and exported: the wire event body of docs/protocol.md, "Events".
///
/// The navigation engine produces typed events; this is their envelope once the daemon has placed
/// them in the log (global `seq`, per-navigator `revision`) and stamped them with `time` and
/// `frame`. The store keeps exactly these fields, so export, publish and replay share one encoding.
public struct EventRecord: Equatable, Sendable {
    /// Global position in the log, gapless from 1.
    public var seq: Int64
    public var navigator: String
    /// Per-navigator position, gapless from 1.
    public var revision: Int64
    /// e.g. `transition.started`.
    public var type: String
    /// Schema version of `data` for this `type`; decoding rejects versions it does not know.
    public var version: Int
    /// The frame at which the event takes effect (docs/design.md, "The frame clock").
    public var frame: Int64
    /// Unix nanoseconds at which the event was accepted.
    public var time: Int64
    /// The request id of the command that caused it; `nil` for clock-decided events.
    public var command: String?
    /// The digest of the navigator's state after this event (`StateDigest`), lowercase hex; `nil`
    /// until a fleet has folded the record. Derived from the log, never stored: published events
    /// and `history` carry it, records read back from a store or an export do not. Not part of `==`.
    public var digest: String? {
        get {
            switch digestValue {
            case nil: nil
            case .hex(let hex)?: hex
            case .sha256(let digest)?: digest.hex
            }
        }
        set { digestValue = newValue.map(DigestValue.hex) }
    }

    /// `digest` as it was given: a fleet's records keep the hash itself, whose hex is written
    /// straight into the encoded event (`encodedWithData`) instead of into a `String` first.
    var digestValue: DigestValue?

    enum DigestValue: Sendable {
        case hex(String)
        case sha256(SHA256.Digest)
    }
    /// The event's `data` member.
    public var data: JSONObject {
        get {
            switch payload {
            case .tree(let data): data
            case .event(let box): box.event.data
            }
        }
        set { payload = .tree(newValue) }
    }

    /// Where `data` comes from. A record the daemon has just decided keeps its typed event, whose
    /// `data` is written straight to bytes when the record is encoded (`encodedWithData`); one read
    /// from the store, a file or the wire holds the tree it was parsed into.
    var payload: Payload

    enum Payload: Sendable {
        case tree(JSONObject)
        /// Boxed: records are copied through the fleet, the engine and the store several times per
        /// command, and an inline event (a started transition holds five screen lists and an
        /// animator) made each copy retain every one of its members. A class rather than an
        /// `indirect` case: binding an indirect payload copies the event out of its box, while the
        /// box's `let` is read in place.
        case event(EventBox)
    }

    /// A decided event, shared by every copy of its record.
    final class EventBox: Sendable {
        let event: NavigationEvent
        init(_ event: NavigationEvent) { self.event = event }

        /// `event.writeData`, with the event read in place.
        func writeData(_ w: inout JSONSerializer) { event.writeData(&w) }
    }

    public init(
        seq: Int64, navigator: String, revision: Int64, type: String, version: Int = 1, frame: Int64, time: Int64,
        command: String?, data: JSONObject
    ) {
        self.seq = seq
        self.navigator = navigator
        self.revision = revision
        self.type = type
        self.version = version
        self.frame = frame
        self.time = time
        self.command = command
        payload = .tree(data)
    }

    /// A record of a typed event, which keeps it for encoding (`NavigationEvent.record`).
    init(
        seq: Int64, navigator: String, revision: Int64, time: Int64, event: NavigationEvent
    ) {
        self.seq = seq
        self.navigator = navigator
        self.revision = revision
        type = event.type
        version = NavigationEvent.currentVersion
        frame = event.frame
        self.time = time
        command = event.command
        payload = .event(EventBox(event))
    }

    /// Equal members, `data` compared as JSON whichever way each side holds it.
    public static func == (lhs: EventRecord, rhs: EventRecord) -> Bool {
        lhs.seq == rhs.seq && lhs.navigator == rhs.navigator && lhs.revision == rhs.revision && lhs.type == rhs.type
            && lhs.version == rhs.version && lhs.frame == rhs.frame && lhs.time == rhs.time
            && lhs.command == rhs.command && lhs.data == rhs.data
    }

    /// The wire body, members in the documented order.
    public var json: JSON {
        var o: JSONObject = [
            "seq": .int(seq),
            "navigator": .string(navigator),
            "revision": .int(revision),
            "type": .string(type),
            "version": .int(Int64(version)),
            "frame": .int(frame),
            "time": .int(time),
            "command": command.map(JSON.string) ?? .null,
            "data": .object(data),
        ]
        if let digest { o["digest"] = .string(digest) }
        return .object(o)
    }

    /// Reads a wire body back, rejecting missing or mistyped members with the JSON path at fault.
    ///
    /// A client ignores members it does not know (`unknownMembers: .ignore`, the default): the daemon
    /// may add some, and an older client must still read the event. A reader that stores what it
    /// reads (`segue import`) passes `.reject`, since it would lose them.
    public init(json: JSON, unknownMembers: UnknownMembers = .ignore) throws(CoreError) {
        guard let object = json.objectValue else {
            throw CoreError(.badRequest, "An event must be a JSON object.")
        }
        func int(_ key: String) throws(CoreError) -> Int64 {
            guard let value = object[key]?.int64Value else {
                throw CoreError(.badRequest, "Event member \"\(key)\" must be an integer.")
            }
            return value
        }
        func string(_ key: String) throws(CoreError) -> String {
            guard let value = object[key]?.stringValue else {
                throw CoreError(.badRequest, "Event member \"\(key)\" must be a string.")
            }
            return value
        }
        let known: Set<String> = [
            "seq", "navigator", "revision", "type", "version", "frame", "time", "command", "data", "digest",
        ]
        if unknownMembers == .reject, let unknown = object.keys.first(where: { !known.contains($0) }) {
            var error = CoreError(.badRequest, "Event member \"\(unknown)\" is not part of the event format.")
            error.unknownToThisBuild = true
            throw error
        }
        seq = try int("seq")
        navigator = try string("navigator")
        revision = try int("revision")
        type = try string("type")
        let version = try int("version")
        guard let v = Int(exactly: version) else {
            throw CoreError(.badRequest, "Event member \"version\" is out of range.")
        }
        self.version = v
        frame = try int("frame")
        time = try int("time")
        switch object["command"] {
        case nil, .null?: command = nil
        case .string(let s)?: command = s
        default: throw CoreError(.badRequest, "Event member \"command\" must be a string or null.")
        }
        guard let data = object["data"]?.objectValue else {
            throw CoreError(.badRequest, "Event member \"data\" must be an object.")
        }
        payload = .tree(data)
        switch object["digest"] {
        case nil: digest = nil
        case .string(let s)?: digest = s
        default: throw CoreError(.badRequest, "Event member \"digest\" must be a string.")
        }
    }
}
