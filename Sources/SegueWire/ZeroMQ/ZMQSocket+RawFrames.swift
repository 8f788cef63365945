import CZeroMQ

/// Sending and receiving straight from and into borrowed memory, for the hot paths (the daemon's tick
/// fan-out, a subscriber reading hundreds of thousands of ticks a second): no array per frame and no
/// array of frames per message.
extension ZMQSocket {
    /// Sends a two-frame message (a topic and a body, say) from borrowed bytes; libzmq copies both before
    /// returning, so the memory may be reused at once.
    ///
    /// Same contract as ``sendMultipart(_:dontWait:)``: only the first frame honours `dontWait`, and once it
    /// is accepted the second always follows, so a half-sent message is impossible.
    /// - Returns: `false` if the first frame could not be queued without blocking; nothing was sent.
    @discardableResult
    package func sendMultipart(
        _ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer, dontWait: Bool = false
    ) throws(ZMQError) -> Bool {
        let socket = try open("zmq_send")
        let flags = ZMQ_SNDMORE | (dontWait ? ZMQ_DONTWAIT : 0)
        guard try ZMQ.call("zmq_send", { zmq_send(socket, first.baseAddress, first.count, flags) }) != nil else {
            return false
        }
        guard try ZMQ.call("zmq_send", { zmq_send(socket, second.baseAddress, second.count, 0) }) != nil else {
            throw ZMQError(code: .wouldBlock, call: "zmq_send (frame 2 of 2)")
        }
        return true
    }

    /// Receives one frame and lends it to `body` without copying it out of libzmq's message.
    ///
    /// The bytes are valid only inside `body`. `more` says whether further frames of the same message
    /// follow (receive them with the same call; libzmq delivers messages whole, so they are already here).
    /// - Returns: what `body` returned, or `nil` if no frame arrived without blocking (`dontWait`, or
    ///   `ZMQ_RCVTIMEO`).
    package func withReceivedFrame<Result>(
        dontWait: Bool = false, _ body: (_ bytes: UnsafeRawBufferPointer, _ more: Bool) -> Result
    ) throws(ZMQError) -> Result? {
        let socket = try open("zmq_msg_recv")
        var message = zmq_msg_t()
        // The message stays at this address for the whole call: libzmq may point into it for small frames.
        return try withUnsafeMutablePointer(to: &message) { (message) throws(ZMQError) -> Result? in
            zmq_msg_init(message)  // cannot fail: it only resets the structure
            defer { zmq_msg_close(message) }
            let flags = dontWait ? ZMQ_DONTWAIT : 0
            guard try ZMQ.call("zmq_msg_recv", { zmq_msg_recv(message, socket, flags) }) != nil else { return nil }
            let bytes = UnsafeRawBufferPointer(start: zmq_msg_data(message), count: zmq_msg_size(message))
            return body(bytes, zmq_msg_more(message) == 1)
        }
    }
}
