import Testing

@testable import SegueWire

/// CURVE keys, Z85, and real CURVE handshakes with and without a ZAP handler.
@Suite struct ZMQCurveTests {
    /// ZMQ RFC 32's test vector, the empty string, and a run of every byte value.
    static let z85Cases: [([UInt8], String?)] = [
        ([0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B], "HelloWorld"),
        ([], ""),
        ([0, 0, 0, 0], "00000"),
        ((0..<256).map { UInt8($0) }, nil),
    ]

    @Test(arguments: z85Cases)
    func z85RoundTrips(bytes: [UInt8], expected: String?) throws {
        let encoded = try ZMQCurve.z85Encode(bytes)
        if let expected { #expect(encoded == expected) }
        #expect(encoded.utf8.count == bytes.count / 4 * 5)
        #expect(try ZMQCurve.z85Decode(encoded) == bytes)
    }

    @Test(arguments: ["abc", "Hello World", "Hello\u{7F}orld", "Hello\"orld"])
    func invalidZ85TextIsRejected(text: String) {
        #expect(throws: ZMQError.self) { try ZMQCurve.z85Decode(text) }
    }

    @Test func bytesThatAreNotWholeGroupsAreRejected() {
        #expect(throws: ZMQError.self) { try ZMQCurve.z85Encode([1, 2, 3]) }
    }

    @Test func keysAreThirtyTwoBytesOrFortyCharacters() throws {
        let pair = try ZMQCurve.keyPair()
        #expect(pair.public.utf8.count == 40)
        #expect(pair.secret.utf8.count == 40)
        #expect(pair.public != pair.secret)
        #expect(try ZMQCurve.publicKey(fromSecret: pair.secret) == pair.public)
        let key = try ZMQCurve.Key(z85: pair.public)
        #expect(key.bytes.count == 32)
        #expect(try ZMQCurve.Key(bytes: key.bytes).z85 == pair.public)

        #expect(throws: ZMQError.self) { try ZMQCurve.Key(z85: String(pair.public.dropLast())) }
        #expect(throws: ZMQError.self) { try ZMQCurve.Key(bytes: Array(key.bytes.dropLast())) }
    }

    @Test func clientThatKnowsTheServerKeyIsHeard() throws {
        let context = try ZMQContext()
        let serverKeys = try ZMQCurve.keyPair()
        let server = try curveServer(context, keys: serverKeys)
        let client = try curveClient(context, serverKey: serverKeys.public, endpoint: server.lastEndpoint)
        try client.send("over curve")
        let message = try #require(try server.receiveMultipart())
        #expect(message.last == bytes("over curve"))
        try server.sendMultipart([message[0], bytes("and back")])
        #expect(try client.receive() == bytes("and back"))
    }

    @Test func clientWithTheWrongServerKeyIsNeverHeard() throws {
        let context = try ZMQContext()
        let serverKeys = try ZMQCurve.keyPair()
        let server = try ZMQSocket(context, .router)
        let monitor = try attachMonitor(
            to: server, name: "curve-monitor", events: [.handshakeFailed, .handshakeSucceeded])
        try configureCurveServer(server, keys: serverKeys)
        let impostorKey = try ZMQCurve.keyPair().public
        let client = try curveClient(context, serverKey: impostorKey, endpoint: server.lastEndpoint)
        try client.send("should not arrive")

        let event = try #require(try awaitMonitorEvent(monitor, [.handshakeFailed, .handshakeSucceeded]))
        #expect(ZMQMonitorEvent.Kind.handshakeFailed.contains(event.kind))
        #expect(try server.receive(dontWait: true) == nil)
    }

    @Test func zapHandlerNamesAdmittedClientsAndRefusesOthers() throws {
        let context = try ZMQContext()
        let admitted = try ZMQCurve.keyPair()
        let admittedKey = try ZMQCurve.Key(z85: admitted.public).bytes
        let handler = ThreadResult(serving: try ZMQSocketTransfer(bound(context, .rep, "inproc://zeromq.zap.01"))) {
            request in
            // ZAP request (RFC 27): version, request id, domain, address, routing id, mechanism, client key.
            let known =
                request.count == 7 && request[2] == bytes("segue") && request[5] == bytes("CURVE")
                && request[6] == admittedKey
            let status = known ? ["200", "OK", "controller"] : ["400", "Unknown client key.", ""]
            return [bytes("1.0"), request[1]] + status.map(bytes) + [[]]
        }

        let serverKeys = try ZMQCurve.keyPair()
        let server = try ZMQSocket(context, .router)
        let monitor = try attachMonitor(to: server, name: "zap-monitor", events: .handshakeFailedAuth)
        try server.setZAPDomain("segue")
        try configureCurveServer(server, keys: serverKeys)

        let controller = try curveClient(
            context, serverKey: serverKeys.public, endpoint: server.lastEndpoint, keys: admitted)
        try controller.send("navigate")
        let message = try #require(try server.receiveMessage(metadata: ["User-Id", "Peer-Address"]))
        #expect(message.frames.last == bytes("navigate"))
        #expect(message.userID == "controller")
        #expect(message.metadata["Peer-Address"] == "127.0.0.1")

        let stranger = try curveClient(context, serverKey: serverKeys.public, endpoint: server.lastEndpoint)
        try stranger.send("let me in")
        #expect(try awaitMonitorEvent(monitor, .handshakeFailedAuth) != nil)
        #expect(try server.receive(dontWait: true) == nil)

        context.terminate()
        #expect((handler.wait() ?? 0) >= 2)
    }

    private func configureCurveServer(_ server: ZMQSocket, keys: (public: String, secret: String)) throws {
        try server.setReceiveTimeout(arrivalTimeout)
        try server.setCurveServer(true)
        try server.setCurveSecretKey(keys.secret)
        try server.bind("tcp://127.0.0.1:*")
    }

    private func curveServer(_ context: ZMQContext, keys: (public: String, secret: String)) throws -> ZMQSocket {
        let server = try ZMQSocket(context, .router)
        try configureCurveServer(server, keys: keys)
        return server
    }

    private func curveClient(
        _ context: ZMQContext, serverKey: String, endpoint: String, keys: (public: String, secret: String)? = nil
    ) throws -> ZMQSocket {
        let keys = try keys ?? ZMQCurve.keyPair()
        let client = try ZMQSocket(context, .dealer)
        try client.setReceiveTimeout(arrivalTimeout)
        try client.setCurveServerKey(serverKey)
        try client.setCurvePublicKey(keys.public)
        try client.setCurveSecretKey(keys.secret)
        try client.connect(endpoint)
        return client
    }
}

/// A socket bound to `endpoint`, made in a helper so that the caller keeps no reference besides the one it
/// hands over.
func bound(_ context: ZMQContext, _ kind: ZMQSocket.Kind, _ endpoint: String) throws -> ZMQSocket {
    let socket = try ZMQSocket(context, kind)
    try socket.bind(endpoint)
    return socket
}

extension ThreadResult where Value == Int {
    /// Serves a REP socket on its own thread until its context terminates; the value is the request count.
    convenience init(serving transfer: ZMQSocketTransfer, reply: @escaping @Sendable ([[UInt8]]) -> [[UInt8]]) {
        self.init {
            let socket = transfer.take()
            var handled = 0
            while let request = try? socket.receiveMultipart() {
                _ = try? socket.sendMultipart(reply(request))
                handled += 1
            }
            return handled
        }
    }
}
