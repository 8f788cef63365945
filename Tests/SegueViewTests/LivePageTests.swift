import Foundation
import HTTPTestSupport
import SegueCore
import SegueHTTP
import SegueView
import Synchronization
import Testing

/// A live page that falls behind, against a real server and a client that stops reading: it is held
/// to each navigator's newest tick instead of being cut off, and each navigator's messages keep their
/// order.
@Suite struct LivePageTests {
    /// A hub served on loopback, the streams it opened, and a client with a small receive buffer that
    /// has read the stream's head.
    final class Served {
        let hub: LiveHub
        let server: HTTPServer
        let opened = Opened()
        let client: RawHTTPClient

        final class Opened: Sendable {
            let streams = Mutex<[EventStream]>([])
        }

        init(holdLimit: Int) throws {
            let hub = LiveHub(frameRate: 60, source: "segued", holdLimit: holdLimit)
            let opened = opened
            server = try HTTPServer(listen: ListenAddress(host: "127.0.0.1", port: 0)) { _ in
                let stream = hub.connect()
                opened.streams.withLock { $0.append(stream) }
                return .events(stream)
            }
            self.hub = hub
            client = try RawHTTPClient(port: server.address.port, receiveBuffer: 4096)
            client.get("/events")
            #expect(client.read(untilReceiving: "event: hello"))
        }

        var stream: EventStream { opened.streams.withLock { $0[0] } }

        /// Waits until the server has handed everything queued to the socket.
        func drained() -> Bool {
            let deadline = ContinuousClock.now + .seconds(10)
            while stream.queuedBytes > 0, ContinuousClock.now < deadline {
                client.readAvailable()
                usleep(1000)
            }
            return stream.queuedBytes == 0
        }

        /// The client gone first: a server stopping waits for streams whose client never reads.
        deinit {
            shutdown(client.fd, Int32(SHUT_RDWR))
            server.stop()
        }
    }

    /// The frames of `navigator`'s ticks, in the order they came.
    static func frames(_ events: [(name: String?, data: String)], of navigator: String) throws -> [Int64] {
        try events.filter { $0.name == "ticks" }.flatMap { try JSON.parse($0.data).arrayValue ?? [] }
            .filter { $0["navigator"]?.stringValue == navigator }.compactMap { $0["frame"]?.int64Value }
    }

    /// Reads until a whole `ticks` message has brought `navigator`'s tick of `frame`.
    static func read(_ client: RawHTTPClient, until frame: Int64, of navigator: String) throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while try frames(client.events, of: navigator).last != frame {
            guard ContinuousClock.now < deadline, !client.closed else { return false }
            usleep(2000)
            client.readAvailable()
        }
        return true
    }

    @Test func aPageBehindGetsEachNavigatorsNewestTickOnceItReads() throws {
        let served = try Served(holdLimit: 8 << 10)
        let hub = served.hub
        // 1,000 frames of two 1 KiB ticks: megabytes more than the socket's buffers take.
        for frame in 1...1000 { hub.ticks(ViewerTests.frame(Int64(frame), ["a", "b"], pad: 1000)) }
        #expect(hub.heldTicks == [2] && hub.isHolding, "a page that stopped reading is held to one tick a navigator")
        hub.releaseHeld()
        #expect(hub.heldTicks == [2], "not released while it is behind")
        #expect(served.stream.queuedBytes < 16 << 10, "held ticks are not queued: \(served.stream.queuedBytes)")
        // An event for a: a's held tick goes first; b's stays held.
        hub.event(
            EventRecord(
                seq: 1, navigator: "a", revision: 2, type: "transition.completed", frame: 1000, time: 0, command: nil,
                data: [:]))
        #expect(hub.heldTicks == [1])
        try #require(served.drained(), "the client read everything queued")
        // The page has caught up: b's held tick goes when the hub releases it, and frames go on.
        hub.releaseHeld()
        #expect(hub.heldTicks == [0] && !hub.isHolding)
        hub.ticks(ViewerTests.frame(1001, ["a", "b"], pad: 1000))
        #expect(try Self.read(served.client, until: 1001, of: "b"))
        #expect(!served.client.closed, "the page was not cut off")
        let events = served.client.events
        let a = try Self.frames(events, of: "a")
        let b = try Self.frames(events, of: "b")
        #expect(a.count < 1001 && a.first == 1 && a.last == 1001 && a == a.sorted(), "a: \(a.count) ticks")
        #expect(b.count < 1001 && b.last == 1001 && b == b.sorted(), "b: \(b.count) ticks")
        #expect(b.suffix(2) == [1000, 1001], "b: \(b.suffix(3))")
        #expect(a.suffix(2) == [1000, 1001], "a: \(a.suffix(3))")
        // a's newest tick (frame 1000) went just before its event, b's did not.
        let completed = try #require(events.firstIndex { $0.name == "event" })
        let before = try JSON.parse(events[completed - 1].data).arrayValue ?? []
        #expect(before.map { $0["navigator"]?.stringValue } == ["a"] && before.first?["frame"] == 1000)
    }

    /// A page keeping up gets every frame as its own message, whatever another page does.
    @Test func aPageKeepingUpGetsEveryFrame() throws {
        let served = try Served(holdLimit: 8 << 10)
        let slow = try RawHTTPClient(port: served.server.address.port, receiveBuffer: 4096)
        slow.get("/events")
        #expect(slow.read(untilReceiving: "event: hello"))
        for frame in 1...300 {
            served.hub.ticks(ViewerTests.frame(Int64(frame), ["a"], pad: 1000))
            try #require(served.drained())
        }
        #expect(try Self.read(served.client, until: 300, of: "a"))
        #expect(try Self.frames(served.client.events, of: "a") == Array(1...300))
        #expect(served.hub.heldTicks == [0, 1], "the page that stopped reading is held")
        shutdown(slow.fd, Int32(SHUT_RDWR))
    }

    /// A navigator's held tick goes before its new state too; the other navigators' stay held.
    @Test func aHeldTickGoesBeforeItsNavigatorsState() throws {
        let served = try Served(holdLimit: 8 << 10)
        for frame in 1...1000 { served.hub.ticks(ViewerTests.frame(Int64(frame), ["a", "b"], pad: 1000)) }
        #expect(served.hub.heldTicks == [2])
        served.hub.navigator(["navigator": "b", "revision": 3, "stack": []])
        #expect(served.hub.heldTicks == [1])
        try #require(served.drained())
        served.client.readAvailable()
        let events = served.client.events
        let state = try #require(events.lastIndex { $0.name == "navigator" })
        let before = try JSON.parse(events[state - 1].data).arrayValue ?? []
        #expect(before.map { $0["navigator"]?.stringValue } == ["b"] && before.first?["frame"] == 1000)
    }

    /// A page whose client went away while ticks were held for it is dropped at the next release.
    @Test func aPageGoneWhileHeldIsDropped() throws {
        let served = try Served(holdLimit: 8 << 10)
        for frame in 1...1000 { served.hub.ticks(ViewerTests.frame(Int64(frame), ["a"], pad: 1000)) }
        #expect(served.hub.heldTicks == [1])
        shutdown(served.client.fd, Int32(SHUT_RDWR))
        let deadline = ContinuousClock.now + .seconds(30)
        while !served.stream.isFinished, ContinuousClock.now < deadline { usleep(10_000) }
        #expect(served.stream.isFinished, "libmicrohttpd saw the client go")
        served.hub.releaseHeld()
        #expect(served.hub.heldTicks.isEmpty && served.hub.pages == 0)
    }

    /// A restored log drops what was held: it belongs to the old log.
    @Test func aResetDropsHeldTicks() throws {
        let served = try Served(holdLimit: 8 << 10)
        for frame in 1...1000 { served.hub.ticks(ViewerTests.frame(Int64(frame), ["a", "b", "c"], pad: 1000)) }
        #expect(served.hub.heldTicks == [3])
        served.hub.reset(seq: 1)
        #expect(served.hub.heldTicks == [0])
    }
}
