/// The reply to a command that changes a navigator, written straight into bytes: exactly
/// `JSON.object(CommandReply.encode(…)).serializedBytes()`, without the tree.
///
/// Every mutating command is answered with one, so the reply skips the `JSONObject` (an array of
/// keyed members searched on each set) and its serialization; a test holds the two encodings
/// together over every kind of event. The rule is the tree's: `ok`, `id`, `navigator`, `revision`,
/// `seq`, `frame`, then each member where an event first sets it (a later event replaces its value
/// in place), then `phase` when a transition is in flight.
package enum CommandReplyWriter {
    /// The members events set, in the order of first setting, a later setting replacing the value
    /// in place: one slot per key and the order packed in an integer, so a reply allocates nothing
    /// before its bytes.
    fileprivate struct Members {
        enum Key: UInt32 { case root, transition, screen, queued, percent, decision, fraction }

        var root: Screen?
        var transition = 0
        var screen: Screen?
        var queued = 0
        var percent = 0.0
        var decision: StaticString = ""
        var fraction = 0.0
        /// The keys set so far, three bits each in order of first setting (seven keys fit).
        private var order: UInt32 = 0
        private var seen: UInt32 = 0
        private(set) var count = 0

        mutating func note(_ key: Key) {
            guard seen & 1 << key.rawValue == 0 else { return }
            seen |= 1 << key.rawValue
            order |= key.rawValue << (3 * UInt32(count))
            count += 1
        }

        func key(at index: Int) -> Key { Key(rawValue: order >> (3 * UInt32(index)) & 7)! }
    }

    package static func encode(
        id: String?, navigator: String, revision: Int64, seq: Int64, frame: Int64, events: [NavigationEvent],
        phase: TransitionPhase?
    ) -> [UInt8] {
        var m = Members()
        for event in events {
            switch event.kind {
            case .created(let root, _, _):
                m.root = root
                m.note(.root)
            case .started(let s):
                m.transition = s.transition
                m.note(.transition)
                m.screen = s.to
                m.note(.screen)
            case .queued(_, let position, _):
                // No `transition`: none has started (the id is in the `transition.queued` event).
                m.queued = position
                m.note(.queued)
            case .updated(_, let percent, _, _, _):
                m.percent = percent
                m.note(.percent)
            case .finishing:
                m.decision = "finish"
                m.note(.decision)
            case .cancelling:
                m.decision = "cancel"
                m.note(.decision)
            case .interrupted(let t, let fraction, _, _):
                m.transition = t
                m.note(.transition)
                m.fraction = fraction
                m.note(.fraction)
            case .reversed(let t, let fraction, _, _):
                m.transition = t
                m.note(.transition)
                m.decision = "cancel"
                m.note(.decision)
                m.fraction = fraction
                m.note(.fraction)
            case .paused(_, let fraction), .seeked(_, let fraction, _), .resumed(_, let fraction):
                m.fraction = fraction
                m.note(.fraction)
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
                for index in 0..<m.count { w.write(m.key(at: index), of: m) }
                if let phase {
                    w.append(",\"phase\":")
                    w.writeString(phase.rawValue)
                }
                w.append(UInt8(ascii: "}"))
            }, { Array($0) })
    }
}

extension JSONSerializer {
    fileprivate mutating func write(_ key: CommandReplyWriter.Members.Key, of m: CommandReplyWriter.Members) {
        switch key {
        case .root:
            guard let root = m.root else { return }
            append(",\"root\":")
            writeScreen(root)
        case .transition:
            append(",\"transition\":")
            writeInt(Int64(m.transition))
        case .screen:
            guard let screen = m.screen else { return }
            append(",\"screen\":")
            writeScreen(screen)
        case .queued:
            append(",\"queued\":")
            writeInt(Int64(m.queued))
        case .percent:
            append(",\"percent\":")
            writeDouble(m.percent)
        case .decision:
            append(",\"decision\":\"")
            append(m.decision)
            append(UInt8(ascii: "\""))
        case .fraction:
            append(",\"fraction\":")
            writeDouble(m.fraction)
        }
    }
}
