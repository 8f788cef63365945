import SegueCore
import SegueHTTP
import Synchronization

/// The live viewer's fan-out: what a daemon publishes (through the client library's late-joiner
/// subscription) goes to every connected page, and a page that connects first gets the current
/// picture (every navigator's state and the tick of each transition in flight), under the same lock
/// as the broadcasts, so it misses nothing and sees nothing twice. Every page gets the same ticks, a
/// frame's in one message: a browser that dispatches a message per tick falls behind at a few
/// thousand ticks a second.
package final class LiveHub: Sendable {
    private struct State: ~Copyable {
        var hello: [UInt8]
        var navigators: [String: [UInt8]] = [:]
        /// Each transition in flight's latest tick, as published.
        var inFlight: [String: [UInt8]] = [:]
        /// The `status` message while the daemon is silent, for pages that connect meanwhile.
        var stale: [UInt8]?
        var pages: [LivePage] = []
    }

    private let state: Mutex<State>
    /// A page that falls this far behind is cut off; its browser reconnects and starts afresh. Held
    /// ticks keep a page from getting here on ticks alone: only events and states take it past
    /// `holdLimit` and a message.
    package let streamLimit: Int
    /// A page this far behind gets ticks only as fast as it reads: each navigator's newest (`LivePage`).
    package let holdLimit: Int
    /// A page's socket keeps ~128 KiB (the kernel doubles this), so a slow page's backlog is seen here
    /// and held, not sent into megabytes of kernel buffer it would read seconds late. Over a link
    /// slower than the ticks (a remote tab) the page is then held too, and skips frames.
    static let socketSendBuffer = 64 << 10

    package init(frameRate: Int, source: String, streamLimit: Int = 4 << 20, holdLimit: Int = 256 << 10) {
        state = Mutex(State(hello: ViewerMessage.hello(mode: "live", frameRate: frameRate, source: source)))
        self.streamLimit = streamLimit
        self.holdLimit = holdLimit
    }

    /// A new page's stream, already holding the current picture. Its limit counts from the end of
    /// that picture, so a fleet whose picture is larger than the limit still opens.
    package func connect() -> EventStream {
        state.withLock { s in
            let inFlight = s.inFlight.keys.sorted().map { s.inFlight[$0]! }
            let picture =
                [s.hello] + s.navigators.keys.sorted().map { s.navigators[$0]! }
                + ViewerMessage.ticks(inFlight, upTo: ViewerMessage.ticksMessageSize) + (s.stale.map { [$0] } ?? [])
            let stream = EventStream(
                limit: streamLimit + picture.reduce(0) { $0 + $1.count }, sendBuffer: Self.socketSendBuffer)
            for message in picture { stream.send(raw: message) }
            s.pages.append(LivePage(stream))
            return stream
        }
    }

    package var pages: Int { state.withLock { s in s.pages.filter { !$0.stream.isFinished }.count } }

    /// Whether any page has ticks held back.
    package var isHolding: Bool { state.withLock { s in s.pages.contains { $0.heldTicks > 0 } } }

    /// Sends their held ticks to the pages that have read down to `holdLimit`: without it, the last
    /// ticks held when the fleet stops (the final ones) would wait for the next frame's.
    package func releaseHeld() {
        state.withLock { s in Self.each(&s.pages) { $0.release(holdLimit: holdLimit) } }
    }

    /// How many navigators' ticks are held back from each page, in the order the pages connected.
    package var heldTicks: [Int] { state.withLock { s in s.pages.map(\.heldTicks) } }

    /// A navigator's new state (a snapshot, or `state` after an event that changed it).
    package func navigator(_ object: JSONObject) {
        guard let name = object["navigator"]?.stringValue else { return }
        let message = ViewerMessage.make("navigator", .object(object))
        state.withLock { s in
            s.navigators[name] = message
            Self.each(&s.pages) { $0.send(message, about: name) }
        }
    }

    package func event(_ record: EventRecord) {
        let message = ViewerMessage.make("event", record.json)
        state.withLock { s in Self.each(&s.pages) { $0.send(message, about: record.navigator) } }
    }

    /// One frame's ticks (or the part of it that has come), each as published.
    package func ticks(_ batch: FrameTicks) {
        guard !batch.ticks.isEmpty else { return }
        let message = ViewerMessage.ticks(batch.ticks.map(\.bytes))
        state.withLock { s in
            for tick in batch.ticks { s.inFlight[tick.navigator] = tick.final ? nil : tick.bytes }
            Self.each(&s.pages) { $0.send(batch, message: message, holdLimit: holdLimit) }
        }
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
            for i in s.pages.indices { s.pages[i].dropHeld() }
        }
    }

    /// A comment to every page: keeps idle connections open and finds the ones whose page is gone.
    package func keepAlive() {
        broadcast(Array(": keep-alive\n\n".utf8)) { _ in }
    }

    /// Ends every page's stream (the viewer is stopping).
    package func closeAll() {
        state.withLock { s in
            for page in s.pages { page.stream.close() }
            s.pages = []
        }
    }

    private func broadcast(_ message: [UInt8], remember: (inout State) -> Void) {
        state.withLock { s in
            remember(&s)
            Self.each(&s.pages) { $0.stream.send(raw: message) }
        }
    }

    /// Gives `send` each page; a page it returns false for is gone.
    private static func each(_ pages: inout [LivePage], _ send: (inout LivePage) -> Bool) {
        var i = 0
        while i < pages.count {
            if send(&pages[i]) { i += 1 } else { pages.remove(at: i) }
        }
    }
}
