import Foundation
import SegueCore
import SegueWire
import Testing

/// Clients behind ZeroMQ's own request-reply broker (the guide's extended request-reply: a ROUTER
/// frontend and a DEALER backend joined by `zmq_proxy`). The broker pushes each client's address
/// onto the envelope; the daemon answers in the whole envelope, so the broker can route the reply
/// back: REQ clients, and DEALERs that send the delimiter themselves, are served through it.
@Suite(.ownThreads) struct ProtocolBrokerTests {
    /// Four REQ clients and a DEALER with its own delimiter through one broker, each with its own
    /// navigator; the DEALER's reply keeps the delimiter, and errors come back routed the same way.
    @Test func clientsBehindAZeroMQProxyAreAnsweredThroughIt() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let broker = try Broker(daemon: daemon.commandEndpoint)
        defer { broker.stop() }
        let clients = try (0..<4).map { _ in try TestClient(endpoint: broker.endpoint, kind: .req) }
        for (index, client) in clients.enumerated() {
            let navigator = JSON.string("b\(index)")
            try client.ok(["cmd": "create", "id": .string("c\(index)"), "navigator": navigator, "root": "Home"])
            try client.ok(["cmd": "push", "navigator": navigator, "screen": .string("S\(index)"), "animated": false])
        }
        for (index, client) in clients.enumerated() {
            let state = try client.ok(["cmd": "state", "navigator": .string("b\(index)")])
            #expect(TestClient.routes(state) == ["Home", "S\(index)"])
            try client.fails(["cmd": "pop", "navigator": .string("nobody")], .unknownNavigator)
        }
        let dealer = try TestClient(endpoint: broker.endpoint)
        try dealer.send(frames: [[], (["cmd": "ping", "id": "d"] as JSON).serializedBytes()])
        let reply = try dealer.receiveFrames()
        #expect(reply.count == 2 && reply[0].isEmpty, "the delimiter it sent comes back")
        #expect(try JSON.parse(reply[1])["id"] == "d")
    }

    /// `segue` sends its requests behind a delimiter, so it works through a broker as directly.
    @Test func theCommandLineWorksThroughABroker() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let broker = try Broker(daemon: daemon.commandEndpoint)
        defer { broker.stop() }
        let environment = ["SEGUE_ENDPOINT": broker.endpoint]
        for arguments in [["ping"], ["create", "cli", "Home"], ["push", "cli", "Detail", "--no-animate"]] {
            let run = try Cli.run(arguments, environment: environment)
            #expect(run.status == 0, "segue \(arguments.joined(separator: " ")): \(run.stderr)")
        }
        let state = try Cli.run(["state", "cli", "--json"], environment: environment)
        #expect(state.stdout.contains("\"Detail\""), "\(state.stdout)\(state.stderr)")
        let refused = try Cli.run(["pop", "nobody"], environment: environment)
        #expect(refused.status != 0 && refused.stderr.contains("unknown_navigator"), "\(refused.stderr)")
    }

    /// A DEALER that builds a broker's envelope itself gets every frame of it back, in order, and a
    /// malformed body behind it is answered `bad_request` in the same envelope.
    @Test func everyAddressBeforeTheDelimiterComesBack() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let client = try TestClient(endpoint: daemon.commandEndpoint)
        let hops: [[UInt8]] = [Array("hop-2".utf8), [0, 1, 2], Array("hop-1".utf8)]
        try client.send(frames: hops + [[], (["cmd": "ping", "id": "h"] as JSON).serializedBytes()])
        let reply = try client.receiveFrames()
        #expect(Array(reply.dropLast()) == hops + [[]])
        #expect(try JSON.parse(reply.last!)["id"] == "h")
        try client.send(frames: hops + [[], Array("{not json".utf8)])
        let refused = try client.receiveFrames()
        #expect(Array(refused.dropLast()) == hops + [[]])
        #expect(try JSON.parse(refused.last!)["error"]?["code"] == "bad_request")
    }
}

/// A ROUTER–DEALER broker on its own thread, as `zmq_proxy` runs one: clients connect to
/// `endpoint`, the backend to the daemon.
final class Broker {
    let endpoint: String
    private let context: ZMQContext
    private let control: ZMQSocket
    private let done = DispatchSemaphore(value: 0)

    init(daemon: String) throws {
        context = try ZMQContext()
        let frontend = try ZMQSocket(context, .router)
        try frontend.setLinger(.zero)
        endpoint = "tcp://127.0.0.1:\(DaemonProcess.freePort())"
        try frontend.bind(endpoint)
        let backend = try ZMQSocket(context, .dealer)
        try backend.setLinger(.zero)
        try backend.connect(daemon)
        let steer = try ZMQSocket(context, .pair)
        try steer.bind("inproc://broker-control")
        control = try ZMQSocket(context, .pair)
        try control.connect("inproc://broker-control")
        let sockets = (ZMQSocketTransfer(frontend), ZMQSocketTransfer(backend), ZMQSocketTransfer(steer))
        let done = self.done
        Thread {
            _ = try? ZMQProxy.run(frontend: sockets.0.take(), backend: sockets.1.take(), control: sockets.2.take())
            done.signal()
        }.start()
    }

    func stop() {
        _ = try? control.send(Array("TERMINATE".utf8))
        _ = done.wait(timeout: .now() + 5)
        control.close()
        context.terminate()
    }
}
