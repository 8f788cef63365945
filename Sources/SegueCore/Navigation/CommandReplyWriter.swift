/// The reply to a command that changes a navigator, written straight into bytes: exactly
/// `JSON.object(CommandReply.encode(…)).serializedBytes()`, without the tree.
///
/// Every mutating command is answered with one, so the reply skips the `JSONObject` (an array of
/// keyed members searched on each set) and its serialization; a test holds the two encodings
/// together over every kind of event. The rule is the tree's: `ok`, `id`, `navigator`, `revision`,
/// `seq`, `frame`, then each member where an event first sets it (a later event replaces its value
/// in place), then `phase` when a transition is in flight.
package enum CommandReplyWriter {
    /// A member an event sets, in the order of first setting.
    fileprivate enum Member {
        case root(Screen)
        case transition(Int)
        case screen(Screen)
        case queued(Int)
        case percent(Double)
        case decision(StaticString)
        case fraction(Double)

        /// Which key the member is: a later member with the same key replaces it in place.
        var key: Int {
            switch self {
            case .root: 0
            case .transition: 1
            case .screen: 2
            case .queued: 3
            case .percent: 4
            case .decision: 5
            case .fraction: 6
            }
        }
    }

    package static func encode(
        id: String?, navigator: String, revision: Int64, seq: Int64, frame: Int64, events: [NavigationEvent],
        phase: TransitionPhase?
    ) -> [UInt8] {
        var members: [Member] = []
        func set(_ member: Member) {
            if let index = members.firstIndex(where: { $0.key == member.key }) {
                members[index] = member
            } else {
                members.append(member)
            }
        }
        for event in events {
            switch event.kind {
            case .created(let root, _, _): set(.root(root))
            case .started(let s):
                set(.transition(s.transition))
                set(.screen(s.to))
            case .queued(_, let position): set(.queued(position))
            case .updated(_, let percent, _, _, _): set(.percent(percent))
            case .finishing: set(.decision("finish"))
            case .cancelling: set(.decision("cancel"))
            case .interrupted(let t, let fraction, _, _):
                set(.transition(t))
                set(.fraction(fraction))
            case .reversed(let t, let fraction, _, _):
                set(.transition(t))
                set(.decision("cancel"))
                set(.fraction(fraction))
            case .paused(_, let fraction), .seeked(_, let fraction, _), .resumed(_, let fraction):
                set(.fraction(fraction))
            default: break
            }
        }
        return JSONSerializer.withSerializer(
            { w in
                w.append("{\"ok\":true,\"id\":")
                if let id { w.writeString(id) } else { w.append("null") }
                w.append(",\"navigator\":")
                w.writeString(navigator)
                w.append(",\"revision\":")
                w.writeInt(revision)
                w.append(",\"seq\":")
                w.writeInt(seq)
                w.append(",\"frame\":")
                w.writeInt(frame)
                for member in members { w.write(member) }
                if let phase {
                    w.append(",\"phase\":")
                    w.writeString(phase.rawValue)
                }
                w.append(UInt8(ascii: "}"))
            }, { Array($0) })
    }
}

extension JSONSerializer {
    fileprivate mutating func write(_ member: CommandReplyWriter.Member) {
        switch member {
        case .root(let screen):
            append(",\"root\":")
            writeScreen(screen)
        case .transition(let t):
            append(",\"transition\":")
            writeInt(Int64(t))
        case .screen(let screen):
            append(",\"screen\":")
            writeScreen(screen)
        case .queued(let position):
            append(",\"queued\":")
            writeInt(Int64(position))
        case .percent(let percent):
            append(",\"percent\":")
            writeDouble(percent)
        case .decision(let decision):
            append(",\"decision\":\"")
            append(decision)
            append(UInt8(ascii: "\""))
        case .fraction(let fraction):
            append(",\"fraction\":")
            writeDouble(fraction)
        }
    }
}
