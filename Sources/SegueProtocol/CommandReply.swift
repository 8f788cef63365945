import SegueCore

/// The reply to a command that changes a navigator (docs/protocol.md, "Replies of navigation
/// commands"): `ok`, `id`, then its new revision, the last seq appended, the frame it took effect at,
/// and what its events did, in the order they happened.
public struct CommandReply: Equatable, Sendable {
    public var navigator: String
    public var revision: Int64
    public var seq: Int64
    /// The frame the command took effect at.
    public var frame: Int64
    /// The id of the transition that started (or was interrupted), if any.
    public var transition: Int?
    /// `end`'s decision, and `finish`/`cancel`'s: `finish` or `cancel`.
    public var decision: String?
    /// `update`'s applied percent (clamped to [0, 1]).
    public var percent: Double?
    /// The phase of the transition in flight after the command, if one is.
    public var phase: String?
    /// Position in the queue when the command was queued (busy policy `queue`).
    public var queued: Int?
    /// The whole reply, for members not modelled here (`root`, `screen`, `fraction`: where `begin`
    /// interrupted, a reversal turned, or `pause`, `seek`, `resume` left the transition).
    public var json: JSONObject

    /// The reply the daemon sends for a command whose `events` (decided, in order) left the navigator
    /// at `revision` with `inFlight` still running. Each event adds its members where it first sets
    /// them, so the members follow what happened: a queued command that started after a cancel
    /// reads `decision`, then `transition`.
    public static func encode(
        id: String?, navigator: String, revision: Int64, seq: Int64, frame: Int64, events: [NavigationEvent],
        inFlight: Transition?
    ) -> JSONObject {
        var fields: JSONObject = [
            "ok": true, "id": id.map(JSON.string) ?? .null, "navigator": .string(navigator),
            "revision": .int(revision), "seq": .int(seq), "frame": .int(frame),
        ]
        for event in events {
            switch event.kind {
            case .created(let root, _, _): fields["root"] = root.json
            case .started(let s):
                fields["transition"] = .int(s.transition)
                fields["screen"] = s.to.json
            case .queued(_, let position, _): fields["queued"] = .int(position)
            case .updated(_, let percent, _, _, _): fields["percent"] = .double(percent)
            case .finishing: fields["decision"] = "finish"
            case .cancelling: fields["decision"] = "cancel"
            case .interrupted(let t, let fraction, _, _):
                fields["transition"] = .int(t)
                fields["fraction"] = .double(fraction)
            case .reversed(let t, let fraction, _, _):
                fields["transition"] = .int(t)
                fields["decision"] = "cancel"
                fields["fraction"] = .double(fraction)
            case .paused(_, let fraction), .seeked(_, let fraction, _), .resumed(_, let fraction):
                fields["fraction"] = .double(fraction)
            default: break
            }
        }
        if let t = inFlight { fields["phase"] = .string(t.phase.rawValue) }
        return fields
    }

    public init(_ json: JSONObject) throws(WireError) {
        guard let revision = json["revision"]?.int64Value, let seq = json["seq"]?.int64Value else {
            throw .malformed("a command reply without revision and seq")
        }
        self.json = json
        self.navigator = json["navigator"]?.stringValue ?? ""
        self.revision = revision
        self.seq = seq
        self.frame = json["frame"]?.int64Value ?? 0
        self.transition = json["transition"]?.int64Value.map { Int($0) }
        self.decision = json["decision"]?.stringValue
        self.percent = json["percent"]?.doubleValue
        self.phase = json["phase"]?.stringValue
        self.queued = json["queued"]?.int64Value.map { Int($0) }
    }
}

extension WireError {
    /// A reply or publication that is not what the protocol says (decoding on the client's side).
    static func malformed(_ what: String) -> WireError { WireError(.badRequest, what) }
}
