/// A whole received message: its frames, and the connection properties that were asked for.
public struct ZMQMessage: Hashable, Sendable {
    /// The frames in order; never empty.
    public var frames: [[UInt8]]
    /// Connection properties read with `zmq_msg_gets`, only those present (e.g. `"User-Id"` under ZAP).
    public var metadata: [String: String]

    public init(frames: [[UInt8]], metadata: [String: String] = [:]) {
        self.frames = frames
        self.metadata = metadata
    }

    /// The identity a ZAP handler gave the peer, if the socket authenticates peers through ZAP.
    public var userID: String? { metadata["User-Id"] }
}
