import SegueCore

/// The body of `hb/` (docs/protocol.md, "Heartbeats"): where the log stands and which run of the
/// daemon says so. Every event up to `seq` was published before it, on the same socket.
public struct Heartbeat: Equatable, Sendable {
    /// The current frame and wall time (Unix ns).
    public var frame: Int64
    public var time: Int64
    /// The last durable seq.
    public var seq: Int64
    public var navigators: Int
    public var version: String
    /// The daemon's interval: a subscriber judges silence by it.
    public var heartbeatSeconds: Double
    /// The run of the daemon, and the log's last seq when that run opened it (as in `ping`); nil from
    /// a daemon that does not say.
    public var instance: String?
    public var since: Int64?
    /// The fleet digest as of `seq` (docs/protocol.md, "State digests"); nil from a daemon that does
    /// not say, or when it could not tell it as of `seq`.
    public var digest: String?

    public init(
        frame: Int64, time: Int64, seq: Int64, navigators: Int, version: String, heartbeatSeconds: Double,
        instance: String?, since: Int64?, digest: String? = nil
    ) {
        self.frame = frame
        self.time = time
        self.seq = seq
        self.navigators = navigators
        self.version = version
        self.heartbeatSeconds = heartbeatSeconds
        self.instance = instance
        self.since = since
        self.digest = digest
    }

    /// The body, members in the protocol's order.
    public var json: JSON {
        var body: JSONObject = [
            "frame": .int(frame), "time": .int(time), "seq": .int(seq), "navigators": .int(Int64(navigators)),
            "version": .string(version), "heartbeatSeconds": .double(heartbeatSeconds),
        ]
        if let instance { body["instance"] = .string(instance) }
        if let since { body["since"] = .int(since) }
        if let digest { body["digest"] = .string(digest) }
        return .object(body)
    }

    /// Reads a body; `instance` and `since` may be absent (a daemon older than the lineage check).
    public init(json: JSON) throws(WireError) {
        guard let frame = json["frame"]?.int64Value, let time = json["time"]?.int64Value,
            let seq = json["seq"]?.int64Value
        else { throw WireError(.badRequest, "A heartbeat needs integer frame, time and seq.") }
        self.init(
            frame: frame, time: time, seq: seq, navigators: Int(json["navigators"]?.int64Value ?? 0),
            version: json["version"]?.stringValue ?? "", heartbeatSeconds: json["heartbeatSeconds"]?.doubleValue ?? 1,
            instance: json["instance"]?.stringValue, since: json["since"]?.int64Value,
            digest: json["digest"]?.stringValue)
    }
}
