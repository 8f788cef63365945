import SegueCore
import SegueProtocol
import SegueWire

extension Engine {
    // MARK: Ticks

    /// Sends `tick` in each form somebody takes: its JSON body on `tick/<navigator>/` to subscribers of
    /// that topic, and into the frame's batch on the frames socket (docs/protocol.md, "Frame batches").
    /// A form nobody takes is not encoded.
    func publish(_ tick: Tick) {
        if !subscriptionsChecked, !tickSubscriptions.coversRoot || (framesPublisher != nil && !framesTaken) {
            // What a subscriber sent since the loop last looked is taken into account before the first
            // tick it might miss: once per batch of ticks and after anything else was published (a
            // heartbeat or an event that told the subscriber it is in place), and only while some
            // form is skipped.
            subscriptionsChecked = true
            drainSubscriptions()
        }
        if let publisher, !tickSubscriptions.isEmpty {
            tickWriter.writeTopic(tick)
            if tickSubscriptions.takes(tickWriter.topic) {
                tickWriter.writeBody(tick)
                let body = tickWriter.body
                // EAGAIN (a subscriber at its high-water mark) drops the tick for it, as libzmq's PUB does.
                _ = tickWriter.topic.withUnsafeBytes { topic in
                    try? publisher.sendMultipart(topic, body, dontWait: true)
                }
            }
        }
        if framesTaken {
            if tickBatch.isOtherFrame(tick) { sendFrameBatch() }
            tickBatch.append(tick)
            if tickBatch.isFull { sendFrameBatch() }
        }
    }

    /// Whether somebody subscribed to the frames socket's topic.
    var framesTaken: Bool { framesSubscriptions.coversRoot }

    /// Sends the ticks gathered for the frames socket, if any.
    func sendFrameBatch() {
        guard let framesPublisher, !tickBatch.isEmpty else { return }
        tickBatch.flush { body in
            _ = Self.framesTopic.withUnsafeBytes { topic in
                try? framesPublisher.sendMultipart(topic, body, dontWait: true)
            }
        }
    }

    static let framesTopic = Array(TickBatch.topic.utf8)

    // MARK: Subscriptions

    /// How often the loop reads subscriptions without being signalled: a send on the publisher may
    /// process the command that announced one and take its signal (`ZMQPoller.Readiness.signalled`).
    static let subscriptionsInterval: Int64 = 100_000_000

    func subscriptionsDue() -> Bool { WallClock.monotonic() - subscriptionsRead >= Self.subscriptionsInterval }

    /// Reads both publishers' subscription frames and connections, and hands the changes in their
    /// numbers to `stats`.
    func readSubscriptions() {
        subscriptionsRead = WallClock.monotonic()
        drainSubscriptions()
        var peersChanged = false
        for peers in subscriberPeers where peers.drain() { peersChanged = true }
        if peersChanged { feed(.subscribers(subscriberPeers.reduce(0) { $0 + $1.count })) }
        guard subscriptionDelta != 0 else { return }
        // Taken before `feed`, whose `performActions` would otherwise hand the same count over again.
        let delta = subscriptionDelta
        subscriptionDelta = 0
        feed(.subscriptions(delta))
    }

    /// Reads the subscription frames waiting on both publishers into `tickSubscriptions` and
    /// `framesSubscriptions`; their count waits in `subscriptionDelta` (safe while actions are performed).
    func drainSubscriptions() {
        while let frame = try? publisher?.receive(dontWait: true) {
            subscriptionDelta += tickSubscriptions.apply(frame)
        }
        while let frame = try? framesPublisher?.receive(dontWait: true) {
            subscriptionDelta += framesSubscriptions.apply(frame)
        }
    }
}
