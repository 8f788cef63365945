import SegueCore
import SegueProtocol
import SegueWire

/// One frame's ticks from the daemon's frames socket (docs/protocol.md, "Frame batches").
public struct FrameBatch: Equatable, Sendable {
    public var frame: Int64
    /// The frame's instant and when to show it, Unix ns.
    public var time: Int64
    public var presentAt: Int64
    /// The ticks as `tick/<navigator>/` publishes them: each `PublishedTick`'s `bytes` are the JSON
    /// body the publish socket sends for it, byte for byte.
    public var ticks: [PublishedTick]
}

/// A SUB socket on a frames endpoint (`segued --publish-frames`): every navigator's ticks, one
/// message a frame. For a client that draws many navigators at once; `SegueSubscriber` on the publish
/// socket gives events, heartbeats and one navigator's ticks. Belongs to the thread that uses it.
public final class FrameBatchSubscriber {
    public let endpoint: String
    let subscriber: SegueSubscriber

    /// The receive limit (`ZMQ_RCVHWM`), in batches: as the daemon's frames socket, a hundredth of a
    /// tick subscriber's, since a batch holds a hundred ticks or more (at most ~64 MiB queued).
    public static let defaultReceiveLimit = SegueSubscriber.defaultReceiveLimit / 100

    /// Subscribes to `frames/` and waits (up to `ready`) for the connection's handshake.
    ///
    /// - Throws: `.handshake` when the daemon refuses the handshake (a wrong CURVE key).
    public init(
        endpoint: String, ready: Duration = .seconds(2), curve: CurveCredentials? = nil,
        receiveLimit: Int = FrameBatchSubscriber.defaultReceiveLimit
    ) throws(SegueClientError) {
        self.endpoint = endpoint
        subscriber = try SegueSubscriber(
            endpoint: endpoint, topics: [TickBatch.topic], ready: ready, curve: curve, receiveLimit: receiveLimit)
    }

    /// The next batch, or `nil` after `timeout` with nothing (`nil` timeout: wait forever). A body
    /// that does not follow the layout (another version of it, or cut short) is `.malformed`.
    public func next(timeout: Duration?) throws(SegueClientError) -> FrameBatch? {
        while let frames = try subscriber.nextFrames(timeout: timeout) {
            guard frames.topic == Self.topic else { continue }
            let batch: TickBatch
            do { batch = try TickBatch(decoding: frames.body) } catch { throw .malformed(error.message) }
            let ticks = try batch.ticks.map { tick throws(SegueClientError) in
                let bytes = tick.encoded()
                return try SegueClientError.decoding { () throws(WireError) in
                    try PublishedTick(tick.json, bytes: bytes)
                }
            }
            return FrameBatch(frame: batch.frame, time: batch.time, presentAt: batch.presentAt, ticks: ticks)
        }
        return nil
    }

    static let topic = Array(TickBatch.topic.utf8)
}
