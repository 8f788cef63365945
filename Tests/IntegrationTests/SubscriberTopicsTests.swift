import Foundation
import SegueClient
import SegueCore
import Testing

/// A subscriber following 15,000 navigators (two topics each) still gets every subscription
/// to the daemon, the last (`hb/`) included: libzmq sends them through a queue that drops what is
/// past its high-water mark (here, with the default of 1,000, 3,001 topics got through and 30,001
/// did not).
@Suite(.ownThreads) struct SubscriberTopicsTests {
    @Test func thousandsOfTopicsAllReachTheDaemon() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let topics = (0..<15000).flatMap { ["event/n\($0)/", "tick/n\($0)/"] } + ["hb/"]
        let subscriber = try SegueSubscriber(endpoint: daemon.publishEndpoint, topics: topics)
        var heartbeat = false
        let deadline = ContinuousClock.now + .seconds(5)
        while !heartbeat, ContinuousClock.now < deadline {
            if case .heartbeat? = try subscriber.next(timeout: .milliseconds(500)) { heartbeat = true }
        }
        #expect(heartbeat, "no heartbeat: the hb/ subscription, the 30,001st, was dropped")
    }

    /// Subscriptions to part of a name (`tick/p12`, no `/`) by the tens of thousands cost the loop
    /// nothing per topic: each unsubscription once passed over all the others, and 20,000 of them,
    /// sent when the subscriber left, held the loop (no reply, no frame) for 20 s.
    @Test func thousandsOfPartialTopicsLeaveWithoutHoldingTheLoop() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let client = try TestClient(endpoint: daemon.commandEndpoint)
        func subscriptions() throws -> Int64 { try client.call(["cmd": "stats"])["subscriptions"]?.int64Value ?? -1 }
        let before = try subscriptions()
        var subscriber: SegueSubscriber? = try SegueSubscriber(
            endpoint: daemon.publishEndpoint, topics: (0..<20000).map { "tick/p\($0)" })
        let deadline = ContinuousClock.now + .seconds(30)
        while try subscriptions() < before + 20000, ContinuousClock.now < deadline { usleep(50_000) }
        #expect(try subscriptions() == before + 20000)
        try client.call(["cmd": "create", "navigator": "p1x", "root": ["name": "Home"]])
        let ticks = try TestSubscriber(endpoint: daemon.publishEndpoint, topics: ["tick/p1x/"])
        subscriber = nil
        // The 20,000 unsubscriptions are on their way; a command and a transition's ticks go on.
        let pushed = try client.call(
            ["cmd": "push", "navigator": "p1x", "screen": ["name": "A"], "animator": ["duration": 0.3]],
            timeout: .seconds(3))
        #expect(pushed["ok"] == true, "\(pushed)")
        let seen = try ticks.collect(idle: .seconds(3)) { _, body in body["final"] == true }
        #expect(seen.last?.body["final"] == true, "\(seen.count) ticks")
        while try subscriptions() > before + 1, ContinuousClock.now < deadline { usleep(50_000) }
        #expect(try subscriptions() == before + 1, "the partial topics all left; tick/p1x/ stays")
        _ = subscriber
    }
}
