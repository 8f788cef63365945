import SegueCore
import SegueHTTP
import Synchronization

/// The live viewer's fan-out: what a daemon publishes (through the client library's late-joiner
/// subscription) goes to every connected page, and a page that connects first gets the current
/// picture (every navigator's state and the tick of each transition in flight), under the same lock
/// as the broadcasts, so it misses nothing and sees nothing twice. Every page gets the same ticks.
package final class LiveHub: Sendable {
    private struct State: ~Copyable {
        var hello: [UInt8]
        var navigators: [String: [UInt8]] = [:]
        var inFlight: [String: [UInt8]] = [:]
        /// The `status` message while the daemon is silent, for pages that connect meanwhile.
        var stale: [UInt8]?
        var streams: [EventStream] = []
    }

    private let state: Mutex<State>
    /// A page that falls this far behind is cut off; its browser reconnects and starts afresh.
    package let streamLimit: Int

    package init(frameRate: Int, source: String, streamLimit: Int = 4 << 20) {
        state = Mutex(State(hello: ViewerMessage.hello(mode: "live", frameRate: frameRate, source: source)))
        self.streamLimit = streamLimit
    }

    /// A new page's stream, already holding the current picture. Its limit counts from the end of
    /// that picture, so a fleet whose picture is larger than the limit still opens.
    package func connect() -> EventStream {
        state.withLock { s in
            let picture =
                [s.hello] + s.navigators.keys.sorted().map { s.navigators[$0]! }
                + s.inFlight.keys.sorted().map { s.inFlight[$0]! } + (s.stale.map { [$0] } ?? [])
            let stream = EventStream(limit: streamLimit + picture.reduce(0) { $0 + $1.count })
            for message in picture { stream.send(raw: message) }
            s.streams.append(stream)
            return stream
        }
    }

    package var pages: Int { state.withLock { s in s.streams.filter { !$0.isFinished }.count } }

    /// A navigator's new state (a snapshot, or `state` after an event that changed it).
    package func navigator(_ object: JSONObject) {
        guard let name = object["navigator"]?.stringValue else { return }
        let message = ViewerMessage.make("navigator", .object(object))
        broadcast(message) { $0.navigators[name] = message }
    }

    package func event(_ record: EventRecord) {
        broadcast(ViewerMessage.make("event", record.json)) { _ in }
    }

    /// A tick's published bytes.
    package func tick(_ bytes: [UInt8], navigator: String, final: Bool) {
        let message = ViewerMessage.make("tick", bytes: bytes)
        broadcast(message) { s in s.inFlight[navigator] = final ? nil : message }
    }

    /// No heartbeat for a while (`message` says how long and why that may be), or heard again (nil):
    /// each page says so instead of "connected", since what it shows may be out of date.
    package func status(stale message: String?) {
        let body: JSON = ["stale": .bool(message != nil), "message": message.map(JSON.string) ?? .null]
        let bytes = ViewerMessage.make("status", body)
        broadcast(bytes) { s in s.stale = message == nil ? nil : bytes }
    }

    /// The daemon's log went back: pages drop what they show; new states follow.
    package func reset(seq: Int64) {
        broadcast(ViewerMessage.make("reset", .object(["seq": .int(seq)]))) { s in
            s.navigators = [:]
            s.inFlight = [:]
        }
    }

    /// A comment to every page: keeps idle connections open and finds the ones whose page is gone.
    package func keepAlive() {
        broadcast(Array(": keep-alive\n\n".utf8)) { _ in }
    }

    /// Ends every page's stream (the viewer is stopping).
    package func closeAll() {
        state.withLock { s in
            for stream in s.streams { stream.close() }
            s.streams = []
        }
    }

    private func broadcast(_ message: [UInt8], remember: (inout State) -> Void) {
        state.withLock { s in
            remember(&s)
            s.streams.removeAll { !$0.send(raw: message) }
        }
    }
}
