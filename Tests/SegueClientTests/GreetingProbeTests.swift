import SegueWire
import Testing

@testable import SegueClient

/// What the first bytes from a peer say about it, and which endpoints can be asked.
@Suite struct GreetingProbeTests {
    @Test(
        arguments: [
            ([UInt8](), nil),
            (GreetingProbe.signature, nil),
            ([0xFF], nil),
            (Array("SSH-2.0-OpenSSH_9.2\r\n".utf8), "SSH-2.0-OpenSSH_9.2"),
            (Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n".utf8), "HTTP/1.1 400 Bad Request"),
            ([0x16, 0x03, 0x01, 0x41], "???A"),
        ] as [([UInt8], String?)])
    func aFirstByteOtherThanZeroMQsIsQuoted(received: [UInt8], quoted: String?) {
        #expect(GreetingProbe.foreign(received) == quoted)
    }

    /// A READY command's properties, as libzmq 4.3 sends them (captured from segued's two sockets).
    @Test(
        arguments: [
            ("\u{5}READY\u{b}Socket-Type\0\0\0\u{6}ROUTER\u{8}Identity\0\0\0\0", "Socket-Type", "ROUTER"),
            ("\u{5}READY\u{b}Socket-Type\0\0\0\u{4}XPUB", "Socket-Type", "XPUB"),
            ("\u{5}READY\u{b}Socket-Type\0\0\0\u{6}ROUTER\u{8}Identity\0\0\0\0", "Identity", ""),
            ("\u{5}READY\u{8}Identity\0\0\0\0", "Socket-Type", nil),
            ("\u{5}READY\u{b}Socket-Type\0\0\0\u{9}ROUTER", "Socket-Type", nil),
            ("\u{5}ERROR\u{b}Socket-Type\0\0\0\u{4}XPUB", "Socket-Type", nil),
        ] as [(String, String, String?)])
    func aReadyCommandSaysItsSocketType(body: String, name: String, value: String?) {
        #expect(GreetingProbe.readyProperty(name, in: Array(body.utf8)) == value)
    }

    @Test func aGreetingNamesItsMechanism() {
        var greeting = GreetingProbe.signature + GreetingProbe.restOfGreeting
        #expect(greeting.count == GreetingProbe.greetingLength)
        #expect(GreetingProbe.mechanism(of: greeting) == "NULL")
        greeting.replaceSubrange(12..<17, with: Array("CURVE".utf8))
        #expect(GreetingProbe.mechanism(of: greeting) == "CURVE")
        #expect(GreetingProbe.mechanism(of: Array(greeting.prefix(20))) == nil)
    }

    @Test(arguments: [
        (ZMQSocket.Kind.dealer, "ROUTER", true), (.dealer, "XPUB", false), (.sub, "XPUB", true), (.sub, "PUB", true),
        (.sub, "ROUTER", false), (.xsub, "ROUTER", false), (.req, "ROUTER", true), (.dealer, "SUB", false),
    ])
    func whichSocketsTalk(kind: ZMQSocket.Kind, peer: String, talks: Bool) {
        #expect(HandshakeMonitor.canTalk(kind, to: peer) == talks)
    }

    @Test(arguments: [
        ("tcp://127.0.0.1:7400", "127.0.0.1", "7400"),
        ("tcp://[::1]:7400", "::1", "7400"),
        ("tcp://eth0;10.0.0.2:7400", "10.0.0.2", "7400"),
        ("tcp://segue.example:80", "segue.example", "80"),
    ])
    func tcpEndpointsAreAsked(endpoint: String, host: String, port: String) {
        let address = GreetingProbe.tcpAddress(endpoint)
        #expect(address?.0 == host)
        #expect(address?.1 == port)
    }

    @Test(arguments: ["ipc:///run/segue/command.sock", "inproc://segue", "tcp://no-port"])
    func otherEndpointsAreNot(endpoint: String) {
        #expect(GreetingProbe.tcpAddress(endpoint) == nil)
        #expect(GreetingProbe.ask(endpoint, within: .milliseconds(100)) == .unknown)
    }
}
