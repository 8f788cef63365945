import Glibc
import Testing

@testable import SegueWire

/// Message patterns over real sockets, on every transport.
@Suite struct ZMQSocketTests {
    @Test(arguments: ZMQTransport.allCases)
    func routerAndDealersExchangeEnvelopes(transport: ZMQTransport) throws {
        let context = try ZMQContext()
        try withTemporaryDirectory { directory in
            let (router, first) = try connectedPair(
                context, server: .router, client: .dealer, over: transport, directory: directory)
            let second = try ZMQSocket(context, .dealer)
            try second.setReceiveTimeout(arrivalTimeout)
            try first.setRoutingID(bytes("first"))
            try second.setRoutingID(bytes("second"))
            // Routing ids apply to new connections: reconnect `first` so the router learns its id.
            let endpoint = try router.lastEndpoint
            try first.disconnect(endpoint)
            try first.connect(endpoint)
            try second.connect(endpoint)

            try first.sendMultipart([bytes("a"), bytes("b")])
            try second.send("c")
            var received: [[[UInt8]]] = []
            for _ in 0..<2 { received.append(try #require(try router.receiveMultipart())) }
            #expect(Set(received) == [[bytes("first"), bytes("a"), bytes("b")], [bytes("second"), bytes("c")]])

            for envelope in received {
                #expect(try router.sendMultipart([envelope[0], bytes("echo")] + envelope.dropFirst()))
            }
            #expect(try first.receiveMultipart() == [bytes("echo"), bytes("a"), bytes("b")])
            #expect(try second.receiveMultipart() == [bytes("echo"), bytes("c")])
        }
    }

    @Test(arguments: ZMQTransport.allCases)
    func requestEnvelopeHasAnEmptyDelimiterFrame(transport: ZMQTransport) throws {
        let context = try ZMQContext()
        try withTemporaryDirectory { directory in
            let (router, request) = try connectedPair(
                context, server: .router, client: .req, over: transport, directory: directory)
            try request.send("ping")
            let envelope = try #require(try router.receiveMultipart())
            #expect(envelope.count == 3)
            #expect(envelope[1] == [])
            #expect(envelope[2] == bytes("ping"))

            try router.sendMultipart([envelope[0], [], bytes("pong")])
            #expect(try request.receiveMultipart() == [bytes("pong")])
        }
    }

    @Test func requestSocketSendingOutOfTurnThrowsEFSM() throws {
        let context = try ZMQContext()
        let router = try ZMQSocket(context, .router)
        try router.bind("inproc://fsm")
        let request = try ZMQSocket(context, .req)
        try request.connect("inproc://fsm")
        _ = try request.send("first", dontWait: true)
        #expect(throws: ZMQError(code: .wrongState, call: "zmq_send")) { try request.send("second", dontWait: true) }
    }

    @Test(arguments: ZMQTransport.allCases)
    func subscriberGetsOnlyTopicsUnderItsPrefix(transport: ZMQTransport) throws {
        let context = try ZMQContext()
        try withTemporaryDirectory { directory in
            let (publisher, subscriber) = try connectedPair(
                context, server: .pub, client: .sub, over: transport, directory: directory)
            try subscriber.subscribe("tick/main/")
            try subscriber.subscribe("sync/")
            // Subscriptions reach the publisher asynchronously but in order; once "sync/" matches, so does
            // the earlier "tick/main/".
            try subscriber.setReceiveTimeout(.milliseconds(20))
            var synced = false
            for _ in 0..<100 where !synced {
                try publisher.sendMultipart([bytes("sync/"), []])
                synced = try subscriber.receiveMultipart() != nil
            }
            #expect(synced)
            try subscriber.setReceiveTimeout(arrivalTimeout)
            while try subscriber.receiveMultipart(dontWait: true) != nil {}

            for topic in ["tick/main/", "tick/main2/", "tick/other/", "tick/main/sub", "tick/mai", "tick/main/end"] {
                try publisher.sendMultipart([bytes(topic), bytes("body of \(topic)")])
            }
            var topics: [String] = []
            while let message = try subscriber.receiveMultipart() {
                #expect(message.count == 2)
                #expect(text(message[1]) == "body of \(text(message[0]) ?? "")")
                topics.append(text(message[0]) ?? "")
                if topics.last == "tick/main/end" { break }
            }
            #expect(topics == ["tick/main/", "tick/main/sub", "tick/main/end"])
        }
    }

    @Test func xpubReceivesSubscriptionsAsMessages() throws {
        let context = try ZMQContext()
        let publisher = try ZMQSocket(context, .xpub)
        try publisher.setReceiveTimeout(arrivalTimeout)
        try publisher.bind("inproc://ticks")
        let subscriber = try ZMQSocket(context, .sub)
        try subscriber.connect("inproc://ticks")
        try subscriber.subscribe("tick/main/")
        try subscriber.unsubscribe("tick/main/")
        #expect(try publisher.receive() == [1] + bytes("tick/main/"))
        #expect(try publisher.receive() == [0] + bytes("tick/main/"))
    }

    static let multipartCases: [[[UInt8]]] = [
        [[]],
        [bytes("one")],
        [[], bytes("after an empty frame"), []],
        (0..<50).map { bytes("part \($0)") },
        [[UInt8](repeating: 0, count: 70_000), [0xFF, 0x00, 0x7F], bytes("tail")],
    ]

    @Test(arguments: multipartCases)
    func multipartMessagesRoundTrip(frames: [[UInt8]]) throws {
        let context = try ZMQContext()
        let (left, right) = try inprocPair(context)
        #expect(try left.sendMultipart(frames))
        #expect(try right.receiveMultipart() == frames)
        #expect(try right.sendMultipart(frames))
        #expect(try left.receiveMessage() == ZMQMessage(frames: frames))
    }

    @Test func singleFrameReceiveReportsMoreParts() throws {
        let context = try ZMQContext()
        let (left, right) = try inprocPair(context)
        try left.sendMultipart([bytes("head"), bytes("tail")])
        #expect(try right.receive() == bytes("head"))
        #expect(try right.hasMore)
        #expect(try right.receive() == bytes("tail"))
        #expect(try !right.hasMore)
    }

    @Test(arguments: ZMQTransport.allCases)
    func oneMebibyteArrivesWhole(transport: ZMQTransport) throws {
        let context = try ZMQContext()
        try withTemporaryDirectory { directory in
            let (pull, push) = try connectedPair(
                context, server: .pull, client: .push, over: transport, directory: directory)
            let payload = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
            #expect(try push.send(payload))
            let received = try #require(try pull.receive())
            #expect(received.count == payload.count)
            #expect(received == payload)
        }
    }

    /// libzmq applies ZMQ_MAXMSGSIZE to network transports (not inproc).
    @Test(arguments: [ZMQTransport.ipc, .tcp])
    func oversizedMessageDisconnectsThePeerInsteadOfArriving(transport: ZMQTransport) throws {
        let context = try ZMQContext()
        try withTemporaryDirectory { directory in
            let pull = try ZMQSocket(context, .pull)
            try pull.setMaxMessageSize(1024)
            try pull.setReceiveTimeout(arrivalTimeout)
            let monitor = try attachMonitor(to: pull, name: "pull-monitor", events: .disconnected)
            let endpoint = try transport.bind(pull, name: "limited", directory: directory)
            let push = try ZMQSocket(context, .push)
            try push.connect(endpoint)

            try push.send([UInt8](repeating: 1, count: 1024))
            #expect(try pull.receive()?.count == 1024)

            try push.send([UInt8](repeating: 2, count: 4096))
            let event = try #require(try awaitMonitorEvent(monitor, .disconnected))
            #expect(event.kind == .disconnected)
            #expect(try pull.receive(dontWait: true) == nil)
        }
    }

    @Test func nonBlockingCallsReturnNilOrFalseInsteadOfThrowing() throws {
        let context = try ZMQContext()
        let pull = try ZMQSocket(context, .pull)
        try pull.bind("inproc://empty")
        #expect(try pull.receive(dontWait: true) == nil)
        #expect(try pull.receiveMultipart(dontWait: true) == nil)
        #expect(try pull.receiveMessage(dontWait: true) == nil)

        let dealer = try ZMQSocket(context, .dealer)  // no peer: nothing can be queued
        #expect(try dealer.send("lost", dontWait: true) == false)
        #expect(try dealer.sendMultipart([bytes("a"), bytes("b")], dontWait: true) == false)
    }

    @Test func timeoutsReturnNilOrFalse() throws {
        let context = try ZMQContext()
        let pull = try ZMQSocket(context, .pull)
        try pull.bind("inproc://quiet")
        try pull.setReceiveTimeout(.milliseconds(30))
        #expect(try pull.receive() == nil)
        #expect(try pull.receiveMultipart() == nil)

        let dealer = try ZMQSocket(context, .dealer)
        try dealer.setSendTimeout(.milliseconds(30))
        #expect(try dealer.send("nobody listens") == false)
    }

    @Test func mandatoryRouterRefusesUnknownPeers() throws {
        let context = try ZMQContext()
        let router = try ZMQSocket(context, .router)
        try router.setRouterMandatory(true)
        try router.bind("inproc://mandatory")
        #expect(throws: ZMQError(code: .hostUnreachable, call: "zmq_send")) {
            try router.sendMultipart([bytes("gone"), bytes("reply")])
        }
    }

    @Test func failuresKeepTheirErrnoAndCall() throws {
        let context = try ZMQContext()
        let socket = try ZMQSocket(context, .rep)
        #expect(throws: ZMQError(code: .protocolNotSupported, call: "zmq_bind(bogus://x)")) {
            try socket.bind("bogus://x")
        }
        #expect(throws: ZMQError(code: .invalidArgument, call: "zmq_connect(tcp://)")) { try socket.connect("tcp://") }

        try socket.bind("tcp://127.0.0.1:*")
        let other = try ZMQSocket(context, .rep)
        let endpoint = try socket.lastEndpoint
        #expect(throws: ZMQError(code: .addressInUse, call: "zmq_bind(\(endpoint))")) { try other.bind(endpoint) }

        socket.close()
        #expect(socket.isClosed)
        #expect(throws: ZMQError(code: .notSocket, call: "zmq_msg_recv")) { try socket.receive() }
        #expect(throws: ZMQError(code: .notSocket, call: "zmq_send")) { try socket.send("x") }
    }

    @Test func optionsReadBackAsSet() throws {
        let context = try ZMQContext(socketLinger: .milliseconds(250))
        let socket = try ZMQSocket(context, .dealer)
        #expect(try socket.linger == .milliseconds(250))
        try socket.setLinger(nil)
        #expect(try socket.linger == nil)
        try socket.setRoutingID(bytes("worker-7"))
        #expect(try socket.routingID == bytes("worker-7"))

        try socket.setSendHighWaterMark(10)
        try socket.setReceiveHighWaterMark(10)
        try socket.setImmediate(true)
        try socket.setTCPKeepalive(true, idle: .seconds(30), interval: .seconds(5), count: 3)
        try socket.setMaxMessageSize(nil)

        try socket.bind("tcp://127.0.0.1:*")
        let endpoint = try socket.lastEndpoint
        #expect(endpoint.hasPrefix("tcp://127.0.0.1:"))
        #expect(!endpoint.hasSuffix(":*"))
        try socket.unbind(endpoint)

        let dualStack = try ZMQSocket(context, .router)
        try dualStack.setIPv6(true)
        try dualStack.bind("tcp://127.0.0.1:*")
        #expect(try dualStack.lastEndpoint.hasPrefix("tcp://[::ffff:127.0.0.1]:"))
    }

    /// A bracketed IPv6 host works for bind and connect without the caller asking for IPv6
    /// (libzmq alone answers `ENODEV`); a socket that never names one stays IPv4 only.
    @Test(.enabled(if: loopbackIPv6, "needs ::1 on the loopback interface"))
    func aBracketedIPv6HostBindsAndConnects() throws {
        let context = try ZMQContext()
        let router = try ZMQSocket(context, .router)
        try router.setReceiveTimeout(arrivalTimeout)
        try router.bind("tcp://[::1]:*")
        let endpoint = try router.lastEndpoint
        #expect(endpoint.hasPrefix("tcp://[::1]:"))
        let dealer = try ZMQSocket(context, .dealer)
        try dealer.connect(endpoint)
        try dealer.send("over IPv6")
        #expect(text(try router.receiveMultipart()?.last) == "over IPv6")

        let plain = try ZMQSocket(context, .router)
        try plain.bind("tcp://127.0.0.1:*")
        #expect(try plain.lastEndpoint.hasPrefix("tcp://127.0.0.1:"), "no IPv6 unless an endpoint names it")
    }
}

/// Whether this machine's loopback has `::1` (a kernel booted with `ipv6.disable=1` has none).
let loopbackIPv6: Bool = {
    let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in6()
    address.sin6_family = sa_family_t(AF_INET6)
    address.sin6_addr = in6addr_loopback
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0
        }
    }
}()

/// Two PAIR sockets connected over inproc, with a receive timeout.
func inprocPair(_ context: ZMQContext) throws -> (ZMQSocket, ZMQSocket) {
    try connectedPair(context, server: .pair, client: .pair, over: .inproc, directory: "")
}
