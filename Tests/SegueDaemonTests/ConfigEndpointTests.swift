import Testing

@testable import SegueDaemon

@Suite struct ConfigEndpointTests {
    static let valid: [(String, Endpoint.Transport, Bool)] = [
        ("tcp://127.0.0.1:7400", .tcp, false),
        ("tcp://127.1.2.3:1", .tcp, false),
        ("tcp://localhost:65535", .tcp, false),
        ("tcp://lo:7400", .tcp, false),
        ("tcp://[::1]:7400", .tcp, false),
        ("tcp://*:7400", .tcp, true),
        ("tcp://0.0.0.0:*", .tcp, true),
        ("tcp://10.0.0.5:7400", .tcp, true),
        ("tcp://[::]:7400", .tcp, true),
        ("tcp://eth0:7400", .tcp, true),
        ("tcp://segue.example.com:7400", .tcp, true),
        ("tcp://127.0.0.1.example.com:7400", .tcp, true),
        ("ipc:///run/segue/command.sock", .ipc, false),
        ("ipc://@segue-command", .ipc, false),
        ("inproc://commands", .inproc, false),
    ]

    @Test(arguments: valid)
    func validEndpointsParse(text: String, transport: Endpoint.Transport, nonLoopback: Bool) throws {
        let endpoint = try Endpoint(parsing: text)
        #expect(endpoint.transport == transport)
        #expect(endpoint.description == text)
        #expect(endpoint.isNonLoopbackTCP == nonLoopback)
        #expect(Endpoint.isNonLoopbackTCP(text) == nonLoopback)
    }

    /// (endpoint, whether this machine can bind it): an address, an interface or `*`, never a host
    /// name, which only `cluster.advertise` (an endpoint others connect to) may use.
    static let binding: [(String, Bool)] = [
        ("tcp://127.0.0.1:7400", true), ("tcp://0.0.0.0:*", true), ("tcp://*:7400", true),
        ("tcp://[::1]:7400", true), ("tcp://lo:7400", true), ("ipc:///run/segue/command.sock", true),
        ("inproc://commands", true), ("tcp://localhost:7400", false), ("tcp://segue.example.com:7400", false),
        ("tcp://no-such-interface0:7400", false), ("tcp://127.0.0.1.example.com:7400", false),
    ]

    @Test(arguments: binding)
    func onlyAnAddressOrAnInterfaceIsBound(text: String, bindable: Bool) throws {
        #expect(try Endpoint(parsing: text).description == text, "parses either way")
        do throws(EndpointError) {
            _ = try Endpoint(binding: text)
            #expect(bindable)
        } catch {
            #expect(!bindable, "\(error)")
            #expect(error.reason.contains("not a host name: write tcp://127.0.0.1:7400 for loopback"), "\(error)")
        }
    }

    static let invalid: [(String, String)] = [
        ("tcp://127.0.0.1:0", "'tcp://127.0.0.1:0' has port '0'; use 1 to 65535, or * for any free port"),
        ("tcp://127.0.0.1:+80", "'tcp://127.0.0.1:+80' has port '+80'; use 1 to 65535, or * for any free port"),
        ("tcp://:7400", "'tcp://:7400' needs a host: tcp://127.0.0.1:port or tcp://*:port"),
        ("tcp://a b:7400", "'tcp://a b:7400' has host 'a b'; use an address, a host name, an interface or *"),
        ("tcp://1*:7400", "'tcp://1*:7400' has host '1*'; use an address, a host name, an interface or *"),
        ("tcp://[::1:7400", "'tcp://[::1:7400' has a malformed IPv6 address; write tcp://[::1]:port"),
        (
            "ipc://" + String(repeating: "x", count: 108),
            "'ipc://\(String(repeating: "x", count: 108))' has an ipc path longer than 107 bytes"
        ),
        ("inproc://", "'inproc://' has no address after '://'"),
        (
            "pgm://eth0;239.192.1.1:5555",
            "'pgm://eth0;239.192.1.1:5555' has transport 'pgm'; segued binds tcp, ipc or inproc"
        ),
    ]

    @Test(arguments: invalid)
    func invalidEndpointsSayWhy(text: String, reason: String) {
        #expect(throws: EndpointError(reason)) { try Endpoint(parsing: text) }
        #expect(!Endpoint.isNonLoopbackTCP(text))
    }
}
