/// A whole received message: its frames, and the connection properties that were asked for.
package struct ZMQMessage: Hashable, Sendable {
    /// The frames in order; never empty.
    package var frames: [[UInt8]]
    /// Connection properties read with `zmq_msg_gets`, only those present (e.g. `"User-Id"` under ZAP).
    package var metadata: [String: String]

    package init(frames: [[UInt8]], metadata: [String: String] = [:]) {
        self.frames = frames
        self.metadata = metadata
    }

    /// The identity a ZAP handler gave the peer, if the socket authenticates peers through ZAP.
    package var userID: String? { metadata["User-Id"] }
}
