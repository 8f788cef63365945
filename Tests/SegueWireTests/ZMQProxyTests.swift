import Foundation
import Testing

@testable import SegueWire

/// `zmq_proxy_steerable` as `ZMQProxy` runs it: an XSUB → XPUB forwarder whose subscriptions flow
/// upstream, steered and counted over its control socket.
@Suite struct ZMQProxyTests {
    @Test func forwardsOnlySubscribedTopicsAndCountsThem() throws {
        let context = try ZMQContext()
        let publisher = try ZMQSocket(context, .pub)
        try publisher.bind("inproc://upstream")
        let frontend = try ZMQSocket(context, .xsub)
        try frontend.connect("inproc://upstream")
        let backend = try ZMQSocket(context, .xpub)
        try backend.bind("inproc://downstream")
        let steer = try ZMQSocket(context, .pair)
        try steer.bind("inproc://steer")
        let control = try ZMQSocket(context, .pair)
        try control.connect("inproc://steer")
        try control.setReceiveTimeout(arrivalTimeout)

        let sockets = (ZMQSocketTransfer(frontend), ZMQSocketTransfer(backend), ZMQSocketTransfer(steer))
        let done = DispatchSemaphore(value: 0)
        Thread {
            _ = try? ZMQProxy.run(frontend: sockets.0.take(), backend: sockets.1.take(), control: sockets.2.take())
            done.signal()
        }.start()

        let subscriber = try ZMQSocket(context, .sub)
        try subscriber.setReceiveTimeout(arrivalTimeout)
        try subscriber.subscribe("tick/a/")
        try subscriber.connect("inproc://downstream")
        // The subscription reaches the publisher through the proxy: publish until one gets through.
        var first: [[UInt8]]?
        let deadline = ContinuousClock.now + arrivalTimeout
        while first == nil, ContinuousClock.now < deadline {
            try publisher.sendMultipart([bytes("tick/a/"), bytes("0")])
            try subscriber.setReceiveTimeout(.milliseconds(10))
            first = try subscriber.receiveMultipart()
        }
        try #require(first == [bytes("tick/a/"), bytes("0")])
        let before = try statistics(control)
        try subscriber.setReceiveTimeout(arrivalTimeout)
        for index in 1...10 {
            try publisher.sendMultipart([bytes("tick/b/"), bytes("\(index)")])
            try publisher.sendMultipart([bytes("tick/a/"), bytes("\(index)")])
        }
        var bodies: [String] = []
        for _ in 1...10 { bodies.append(text(try subscriber.receiveMultipart()?.last) ?? "") }
        #expect(bodies == (1...10).map(String.init), "only tick/a/, whole and in order")
        let after = try statistics(control)
        // The publisher filters by the forwarded subscription: tick/b/ never reached the proxy.
        #expect(after.frontend.messagesIn - before.frontend.messagesIn == 10)
        #expect(after.backend.messagesOut - before.backend.messagesOut == 10)
        #expect(after.backend.bytesOut - before.backend.bytesOut == 10 * 7 + 9 + 2)
        #expect(after.backend.messagesIn >= 1, "the subscription came in below")
        #expect(after.frontend.messagesOut == after.backend.messagesIn, "and went up")

        try control.send(bytes("TERMINATE"))
        #expect(done.wait(timeout: .now() + 2) == .success, "TERMINATE ends the proxy")
    }

    private func statistics(_ control: ZMQSocket) throws -> ZMQProxy.Statistics {
        try control.send(bytes("STATISTICS"))
        let frames = try #require(try control.receiveMultipart())
        let statistics = try ZMQProxy.Statistics(frames: frames)
        #expect(statistics.frames == frames)
        return statistics
    }

    @Test(arguments: [[[UInt8]](), Array(repeating: [UInt8](repeating: 0, count: 4), count: 8)])
    func aReplyOfAnotherShapeIsRefused(frames: [[UInt8]]) {
        #expect(throws: ZMQError.self) { try ZMQProxy.Statistics(frames: frames) }
    }
}
