import Glibc
import Testing

@testable import SegueWire

/// The error value and the one Duration-to-milliseconds conversion.
@Suite struct ZMQErrorTests {
    static let millisecondCases: [(Duration?, Int32)] = [
        (nil, -1),
        (.zero, 0),
        (.nanoseconds(1), 1),
        (.milliseconds(1), 1),
        (.microseconds(1500), 2),
        (.seconds(2), 2000),
        (.seconds(-1), 0),
        (.seconds(Int64(Int32.max)), Int32.max),
        (.seconds(Int64.max), Int32.max),
    ]

    @Test(arguments: millisecondCases)
    func durationsBecomeMilliseconds(duration: Duration?, milliseconds: Int32) {
        #expect(ZMQ.milliseconds(duration) == milliseconds)
    }

    @Test(arguments: [(Duration.milliseconds(1), Int32(1)), (.seconds(30), 30), (.milliseconds(1500), 2)])
    func keepaliveTimesBecomeWholeSeconds(duration: Duration, seconds: Int32) {
        #expect(ZMQ.seconds(duration) == seconds)
    }

    @Test func errorsKeepErrnoMessageAndCall() {
        let error = ZMQError(code: .terminated, call: "zmq_msg_recv")
        #expect(error.isTerminated)
        #expect(error.message == "Context was terminated")
        #expect(error.description == "zmq_msg_recv failed: Context was terminated (errno \(error.code.rawValue))")
        #expect(!ZMQError(code: .wouldBlock, call: "zmq_send").isTerminated)
        #expect(
            ZMQError(code: .wrongState, call: "zmq_send").message == "Operation cannot be accomplished in current state"
        )
    }

    @Test func eintrIsRetriedAndEagainIsAValue() throws {
        var attempts = 0
        let result = try ZMQ.call("test") {
            attempts += 1
            if attempts < 3 {
                errno = ZMQError.Code.interrupted.rawValue
                return -1
            }
            return 7
        }
        #expect(result == 7)
        #expect(attempts == 3)
        let wouldBlock: () -> Int32 = {
            errno = ZMQError.Code.wouldBlock.rawValue
            return -1
        }
        #expect(try ZMQ.call("test", wouldBlock) == nil)
        #expect(throws: ZMQError(code: .wouldBlock, call: "test")) { try ZMQ.check("test", wouldBlock) }
    }
}
