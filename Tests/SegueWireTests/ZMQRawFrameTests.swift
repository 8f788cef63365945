import Testing

@testable import SegueWire

/// Sending from and receiving into borrowed memory: the same messages as the array-based calls.
@Suite struct ZMQRawFrameTests {
    @Test(arguments: ZMQTransport.allCases)
    func twoFramesFromBorrowedBytesArriveAsOneMessage(transport: ZMQTransport) throws {
        let context = try ZMQContext()
        try withTemporaryDirectory { directory in
            let (sender, receiver) = try connectedPair(
                context, server: .push, client: .pull, over: transport, directory: directory)
            try receiver.setReceiveTimeout(arrivalTimeout)
            // An empty body, a small one (inline in zmq_msg_t) and one past libzmq's 33-byte inline limit.
            let bodies = [[], bytes("{}"), Array(repeating: UInt8(ascii: "x"), count: 500)]
            for body in bodies {
                let sent = try bytes("tick/main/").withUnsafeBytes { topic in
                    try body.withUnsafeBytes { body in try sender.sendMultipart(topic, body) }
                }
                #expect(sent)
            }
            for body in bodies {
                #expect(try receiver.receiveMultipart() == [bytes("tick/main/"), body])
            }
        }
    }

    @Test func receivedFramesAreLentWithTheirMoreFlag() throws {
        let context = try ZMQContext()
        let sender = try ZMQSocket(context, .pair)
        try sender.bind("inproc://raw-frames")
        let receiver = try ZMQSocket(context, .pair)
        try receiver.connect("inproc://raw-frames")
        try receiver.setReceiveTimeout(arrivalTimeout)
        let long = Array(repeating: UInt8(ascii: "y"), count: 300)
        try sender.sendMultipart([bytes("a"), long, []])
        var frames: [([UInt8], Bool)] = []
        for _ in 0..<3 {
            frames.append(try #require(try receiver.withReceivedFrame { (Array($0), $1) }))
        }
        #expect(frames.map(\.0) == [bytes("a"), long, []])
        #expect(frames.map(\.1) == [true, true, false])
        #expect(try receiver.withReceivedFrame(dontWait: true) { _, _ in true } == nil)
    }

    @Test func sendingOnAClosedSocketThrowsNotSocket() throws {
        let context = try ZMQContext()
        let socket = try ZMQSocket(context, .pub)
        socket.close()
        #expect(throws: ZMQError(code: .notSocket, call: "zmq_send")) {
            try [UInt8]().withUnsafeBytes { empty in try socket.sendMultipart(empty, empty) }
        }
    }
}
