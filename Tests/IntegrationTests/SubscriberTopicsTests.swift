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
}
