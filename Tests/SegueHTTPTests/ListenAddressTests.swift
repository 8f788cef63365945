import SegueHTTP
import Testing

@Suite struct ListenAddressTests {
    @Test(arguments: [
        ("127.0.0.1:7480", "127.0.0.1", 7480, true, "127.0.0.1:7480"),
        ("localhost:80", "127.0.0.1", 80, true, "127.0.0.1:80"),
        ("127.0.0.2:0", "127.0.0.2", 0, true, "127.0.0.2:0"),
        ("[::1]:7480", "::1", 7480, true, "[::1]:7480"),
        ("0.0.0.0:7480", "0.0.0.0", 7480, false, "0.0.0.0:7480"),
        ("[::]:8080", "::", 8080, false, "[::]:8080"),
        ("192.168.1.20:65535", "192.168.1.20", 65535, false, "192.168.1.20:65535"),
    ])
    func parses(text: String, host: String, port: Int, loopback: Bool, written: String) throws {
        let address = try ListenAddress(parsing: text)
        #expect(address.host == host)
        #expect(Int(address.port) == port)
        #expect(address.isLoopback == loopback)
        #expect(address.description == written)
        #expect(address.url == "http://\(written)/")
    }

    @Test(arguments: [
        ("7480", "no :PORT"),
        ("example.com:80", "not a numeric IPv4 address"),
        ("127.0.0.1:70000", "the port must be a number from 0 to 65535"),
        ("127.0.0.1:", "the port must be a number"),
        (":7480", "no host"),
        ("[127.0.0.1]:80", "is not an IPv6 address"),
        ("::1:80", "write IPv6 as [::1]"),
    ])
    func rejects(text: String, why: String) {
        #expect {
            try ListenAddress(parsing: text)
        } throws: { error in
            guard let error = error as? HTTPError else { return false }
            return error.code == .invalidAddress && error.message.contains(why) && error.message.contains("'\(text)'")
        }
    }

    @Test func loopbackAnswersToEveryLoopbackName() throws {
        let address = try ListenAddress(parsing: "127.0.0.1:7480")
        #expect(address.hostHeaders == ["127.0.0.1:7480", "localhost:7480", "[::1]:7480"])
        #expect(try ListenAddress(parsing: "0.0.0.0:7480").hostHeaders == ["0.0.0.0:7480"])
    }
}
