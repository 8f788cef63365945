import Foundation
import Synchronization
import Testing

@testable import SegueDaemon

/// A long start asks systemd for more time at once, then every interval, and never after `stop`.
@Suite struct StartKeepAliveTests {
    @Test func asksAtOnceThenEveryIntervalUntilStopped() throws {
        let asked = Atomic<Int>(0)
        let keepAlive = StartKeepAlive(extend: { _ in asked.add(1, ordering: .relaxed) }, interval: .milliseconds(100))
        keepAlive.start()
        keepAlive.start()  // a second start is no second thread
        let deadline = ContinuousClock.now + .seconds(10)
        while asked.load(ordering: .relaxed) < 3, ContinuousClock.now < deadline { usleep(10_000) }
        #expect(asked.load(ordering: .relaxed) >= 3)
        keepAlive.stop()
        let stopped = asked.load(ordering: .relaxed)
        usleep(300_000)
        #expect(asked.load(ordering: .relaxed) == stopped, "nothing asked after stop")
        keepAlive.stop()  // twice is harmless
    }
}
