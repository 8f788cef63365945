import SegueCore
import SegueHTTP

/// What the viewer page receives, as Server-Sent Events (one JSON object per message):
///
/// | event | data |
/// |---|---|
/// | `hello` | `{"mode": "live"\|"replay", "frameRate", "source", "version"}`: first on every connection; the page starts over |
/// | `navigator` | a navigator's state (`ViewerState`): stack, modals, transition, container |
/// | `event` | an event, as published on `event/<navigator>/` |
/// | `ticks` | live: an array of ticks, each byte for byte as published on `tick/<navigator>/`: one frame's (or a part of it, at most ~64 KiB a message), in the order published; to a page that fell behind, each navigator's newest, by name, their frames differing |
/// | `reset` | `{"seq"}`: the daemon's log went back (a restore); states follow |
/// | `status` | live: `{"stale", "message"}`: no heartbeat for three of the daemon's intervals (`stale` true, and why), or heard again |
/// | `frame` | replay: `{"index", "frame", "time", "at", "events", "ticks", "navigators"}` |
/// | `end` | replay: `{"frames"}`, every frame sent |
package enum ViewerMessage {
    package static func make(_ event: String, _ data: JSON) -> [UInt8] {
        EventStream.message(event: event, data: data.serializedBytes())
    }

    package static func make(_ event: String, bytes: [UInt8]) -> [UInt8] {
        EventStream.message(event: event, data: bytes)
    }

    /// About how large a `ticks` message grows before the rest goes in another: a page parses a
    /// fleet's frame in pieces, and no one message nears a stream's cut-off.
    package static let ticksMessageSize = 64 << 10

    /// `ticks` messages of at most `size` bytes of ticks each (one tick larger than that alone).
    package static func ticks(_ ticks: [[UInt8]], upTo size: Int) -> [[UInt8]] {
        var messages: [[UInt8]] = []
        var start = 0
        var bytes = 0
        for (i, tick) in ticks.enumerated() {
            if i > start, bytes + tick.count > size {
                messages.append(Self.ticks(Array(ticks[start..<i])))
                (start, bytes) = (i, 0)
            }
            bytes += tick.count + 1
        }
        if start < ticks.count { messages.append(Self.ticks(Array(ticks[start...]))) }
        return messages
    }

    /// A `ticks` message: each tick's bytes as published, joined into one JSON array.
    package static func ticks(_ ticks: [[UInt8]]) -> [UInt8] {
        var data: [UInt8] = [UInt8(ascii: "[")]
        data.reserveCapacity(ticks.reduce(2) { $0 + $1.count + 1 })
        for (i, tick) in ticks.enumerated() {
            if i > 0 { data.append(UInt8(ascii: ",")) }
            data += tick
        }
        data.append(UInt8(ascii: "]"))
        return make("ticks", bytes: data)
    }

    package static func hello(mode: String, frameRate: Int, source: String) -> [UInt8] {
        make(
            "hello",
            .object([
                "mode": .string(mode), "frameRate": .int(Int64(frameRate)), "source": .string(source),
                "version": .string(SegueVersion.current),
            ]))
    }
}

/// A navigator as the page draws it between ticks: the members of a `state` reply, plus its
/// `container` (`null` for the default 390 × 844 points).
package enum ViewerState {
    /// From a folded state (replay): what `state` would have answered as of `seq`.
    package static func object(_ state: NavigatorState, seq: Int64) -> JSONObject {
        var transition: JSON = .null
        if let t = state.transition {
            transition = .object([
                "id": .int(Int64(t.id)), "operation": .string(t.operation.rawValue), "phase": .string(t.phase.rawValue),
                "from": t.from.json, "to": t.to.json, "interactive": .bool(t.interactive),
            ])
        }
        return withContainer(
            [
                "navigator": .string(state.name), "revision": .int(state.revision), "seq": .int(seq),
                "frame": .int(state.frame), "status": .string(state.status.rawValue),
                "stack": .array(state.stack.map(\.json)), "modals": .array(state.modals.map(\.json)),
                "transition": transition, "queued": .int(Int64(state.queue.count)),
            ], state.config.container)
    }

    /// A `state` reply (live) or a folded state, with the container the page sizes its cards by.
    package static func withContainer(_ object: JSONObject, _ container: ContainerSize?) -> JSONObject {
        var out = object
        out["container"] =
            container.map { .object(["width": .double($0.width), "height": .double($0.height)]) } ?? .null
        return out
    }
}
