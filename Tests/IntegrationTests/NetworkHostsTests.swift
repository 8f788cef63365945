import Foundation
import SegueWire
import Testing

/// The multi-host harness itself: hosts reach each other on the private subnet, the machine's own
/// namespace does not see it, and tear-down leaves no namespace and no process behind, also when
/// the test fails midway.
@Suite(.serialized, .timeLimit(.minutes(1)), .choosesItsBackends) struct NetworkHostsTests {
    @Test(.enabled(if: MultiHostFanoutTests.enabled, "needs network namespaces: \(NetworkHosts.unavailable ?? "")"))
    func hostsTalkOnlyAmongThemselvesAndLeaveNothingBehind() throws {
        try #require(NetworkHosts.unavailable == nil, "\(NetworkHosts.unavailable ?? "")")
        let net = try NetworkHosts(hosts: ["a", "b"])
        defer { net.tearDown() }
        let sleeper = try net.start("/bin/sleep", ["300"], on: "a", log: DaemonProcess.temporaryDirectory() + "/sleep")
        let address = net["a"].address
        let server = net["a"].thread { () throws -> String? in
            let context = try ZMQContext()
            let socket = try ZMQSocket(context, .rep)
            defer {
                socket.close()
                context.terminate()
            }
            try socket.setReceiveTimeout(.seconds(10))
            try socket.bind("tcp://\(address):7600")
            guard let request = try socket.receive() else { return nil }
            try socket.send(request)
            return String(decoding: request, as: UTF8.self)
        }
        let client = net["b"].thread { () throws -> String? in
            let context = try ZMQContext()
            let socket = try ZMQSocket(context, .req)
            defer {
                socket.close()
                context.terminate()
            }
            try socket.setReceiveTimeout(.seconds(10))
            try socket.connect("tcp://\(address):7600")
            try socket.send("from b")
            return try socket.receive().map { String(decoding: $0, as: UTF8.self) }
        }
        #expect(try client.value() == "from b")
        #expect(try server.value() == "from b")
        // The machine's own namespace has no address on the test subnet and no end of a veth pair.
        let addresses = try NetworkHosts.ip(["-o", "addr", "show", "to", NetworkHosts.subnet + ".0/24"])
        #expect(addresses.isEmpty, "\(addresses)")
        let links = try NetworkHosts.ip(["-o", "link", "show", "type", "veth"])
        #expect(!links.contains(" v0@") && !links.contains(" v1@"), "\(links)")
        #expect(net.remainingNamespaces.count == 3, "two hosts and the switch")

        net.tearDown()
        #expect(net.remainingNamespaces.isEmpty)
        #expect(!sleeper.isRunning, "every process it started is gone")
    }
}
