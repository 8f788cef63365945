import Foundation
import SegueCore
import SegueWire

/// A subscriber that never reads, with a receive queue of one message: the peer that a publisher
/// must neither wait for nor buffer without bound. Closed on `deinit`.
final class StuckSubscriber {
    private let context: ZMQContext
    private let socket: ZMQSocket

    /// Subscribes to `topic` on `endpoint`.
    init(endpoint: String, topic: String) throws {
        context = try ZMQContext()
        socket = try ZMQSocket(context, .sub)
        try socket.setLinger(.zero)
        try socket.setReceiveHighWaterMark(1)
        try socket.subscribe(topic)
        try socket.connect(endpoint)
    }

    /// Waits until the daemon counts at least `count` subscriptions (`stats`), so that what it
    /// publishes next goes to this peer too.
    func waitCounted(_ client: TestClient, count: Int64 = 1) throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while try client.call(["cmd": "stats"])["subscriptions"]?.int64Value ?? 0 < count {
            guard ContinuousClock.now < deadline else { throw WaitTimeout(what: "the stuck subscription to arrive") }
            usleep(2_000)
        }
    }

    deinit {
        socket.close()
        context.terminate()
    }
}
