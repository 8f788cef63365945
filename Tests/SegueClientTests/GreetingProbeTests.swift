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
        #expect(GreetingProbe.foreignGreeting(at: endpoint, within: .milliseconds(100)) == nil)
    }
}
