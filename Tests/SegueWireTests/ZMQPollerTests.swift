import Glibc
import Testing

@testable import SegueWire

/// zmq_poll over sockets and a plain pipe, and the ZMQ_FD / ZMQ_EVENTS pair.
@Suite struct ZMQPollerTests {
    @Test func reportsReadinessPerItemInOrder() throws {
        let context = try ZMQContext()
        let (quietServer, quietClient) = try inprocPair(context)
        let busy = try ZMQSocket(context, .pull)
        try busy.bind("inproc://busy")
        let push = try ZMQSocket(context, .push)
        try push.connect("inproc://busy")
        var pipeEnds: [Int32] = [0, 0]
        #expect(pipe(&pipeEnds) == 0)
        defer {
            for end in pipeEnds { _ = Glibc.close(end) }
        }

        var poller = ZMQPoller()
        let quietIndex = poller.add(quietServer)
        let busyIndex = poller.add(busy)
        let wakeIndex = poller.add(fd: pipeEnds[0])
        #expect(poller.count == 3)
        #expect(try poller.poll(timeout: .zero) == [[], [], []])

        try push.send("work")
        let afterSend = try poller.poll(timeout: arrivalTimeout)
        #expect(afterSend[quietIndex].isEmpty)
        #expect(afterSend[busyIndex] == .readable)
        #expect(afterSend[wakeIndex].isEmpty)

        #expect(try busy.receive() == bytes("work"))
        var one: UInt8 = 1
        #expect(write(pipeEnds[1], &one, 1) == 1)
        #expect(try poller.poll(timeout: arrivalTimeout) == [[], [], .readable])
        #expect(!quietClient.isClosed)
    }

    /// An item polled for nothing is neither reported nor waited on, though its socket holds a
    /// message (the daemon's command socket while commands are held); polled for reading again, it
    /// is reported at once, the message still there.
    @Test func anItemPolledForNothingIsLeftAlone() throws {
        let context = try ZMQContext()
        let (pull, push) = try connectedPair(context, server: .pull, client: .push, over: .inproc, directory: "")
        var pipeEnds: [Int32] = [0, 0]
        #expect(pipe(&pipeEnds) == 0)
        defer {
            for end in pipeEnds { _ = Glibc.close(end) }
        }
        var poller = ZMQPoller()
        let held = poller.add(pull)
        let wake = poller.add(fd: pipeEnds[0])
        try push.send("command")
        #expect(try poller.poll(timeout: arrivalTimeout)[held] == .readable)
        poller.setEvents([], at: held)
        var one: UInt8 = 1
        #expect(write(pipeEnds[1], &one, 1) == 1)
        // Only the pipe: the held socket neither shows nor ends a wait.
        let ready = try poller.poll(timeout: arrivalTimeout)
        #expect(ready[held] == [] && ready[wake] == .readable)
        #expect(read(pipeEnds[0], &one, 1) == 1)
        #expect(try poller.poll(timeout: .milliseconds(20)) == [[], []])
        poller.setEvents(.readable, at: held)
        #expect(try poller.poll(timeout: arrivalTimeout)[held] == .readable)
        #expect(try pull.receive() == bytes("command"))
    }

    @Test func connectedPairIsWritable() throws {
        let context = try ZMQContext()
        let (bound, connected) = try inprocPair(context)
        var poller = ZMQPoller()
        poller.add(bound, events: [.readable, .writable])
        poller.add(connected, events: [.readable, .writable])
        // The connecting side has its pipe when `connect` returns; the bound side gets it a moment later.
        let ready = try poller.poll(timeout: arrivalTimeout)
        #expect(ready[1] == .writable)
        #expect(ready[0].isSubset(of: .writable))
        try connected.send("hi")
        #expect(try bound.receive() == bytes("hi"))
    }

    @Test func eventsFollowTheQueueAndTheFDIsValid() throws {
        let context = try ZMQContext()
        let (left, right) = try inprocPair(context)
        #expect(try right.fd >= 0)
        #expect(try !right.events.contains(.readable))
        try left.send("ready")
        var poller = ZMQPoller()
        poller.add(right)
        _ = try poller.poll(timeout: arrivalTimeout)
        #expect(try right.events.contains(.readable))
        #expect(try right.receive(dontWait: true) == bytes("ready"))
        #expect(try !right.events.contains(.readable))
    }

    @Test func pollingAClosedSocketThrowsENOTSOCK() throws {
        let context = try ZMQContext()
        let socket = try ZMQSocket(context, .pull)
        var poller = ZMQPoller()
        poller.add(socket)
        socket.close()
        #expect(throws: ZMQError(code: .notSocket, call: "zmq_poll")) { try poller.poll(timeout: .zero) }
    }

    /// A socket ready before the wait is reported at once, with the plain descriptors ready beside it.
    @Test func aReadySocketIsReportedWithTheDescriptorsReadyBesideIt() throws {
        let context = try ZMQContext()
        let (left, right) = try inprocPair(context)
        var pipeEnds: [Int32] = [0, 0]
        #expect(pipe(&pipeEnds) == 0)
        defer {
            for end in pipeEnds { _ = Glibc.close(end) }
        }
        try left.send("first")
        var poller = ZMQPoller()
        poller.add(right)
        poller.add(fd: pipeEnds[0])
        #expect(try poller.poll(timeout: arrivalTimeout) == [.readable, []])
        var one: UInt8 = 1
        #expect(write(pipeEnds[1], &one, 1) == 1)
        // Still readable (nothing was received), and the pipe is reported in the same call.
        #expect(try poller.poll(timeout: nil) == [.readable, .readable])
        #expect(try right.receive(dontWait: true) == bytes("first"))
        #expect(try poller.poll(timeout: .zero) == [[], .readable])
    }

    /// Commands that leave a socket unready (a peer connecting) wake the wait without ending it.
    @Test func commandsWithoutAMessageDoNotEndTheWait() throws {
        let context = try ZMQContext()
        let server = try ZMQSocket(context, .pull)
        try server.bind("inproc://quiet-commands")
        var poller = ZMQPoller()
        poller.add(server)
        #expect(try poller.poll(timeout: .zero) == [[]])
        // The connect sends the bound socket commands (a new pipe) but no message.
        let client = try ZMQSocket(context, .push)
        try client.connect("inproc://quiet-commands")
        #expect(try poller.poll(timeout: .milliseconds(50)) == [[]])
        try client.send("now")
        #expect(try poller.poll(timeout: arrivalTimeout) == [.readable])
    }

    /// A signalled socket is reported when libzmq signals it, whether or not a message is there, and
    /// is not looked at otherwise: the caller reads it until EAGAIN.
    @Test func aSignalledSocketIsReportedWhenLibzmqSignalsIt() throws {
        let context = try ZMQContext()
        let publisher = try ZMQSocket(context, .xpub)
        try publisher.bind("inproc://signalled")
        var poller = ZMQPoller()
        let index = poller.add(publisher, readiness: .signalled)
        #expect(try poller.poll(timeout: .zero) == [[]])
        let subscriber = try ZMQSocket(context, .sub)
        try subscriber.connect("inproc://signalled")
        try subscriber.subscribe("tick/")
        var frames: [[UInt8]] = []
        let deadline = ContinuousClock.now + arrivalTimeout
        while frames.isEmpty, ContinuousClock.now < deadline {
            guard try poller.poll(timeout: arrivalTimeout)[index] == .readable else { continue }
            while let frame = try publisher.receive(dontWait: true) { frames.append(frame) }
        }
        #expect(frames == [[1] + bytes("tick/")])
    }
}
