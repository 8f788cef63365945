import Foundation
import SegueCore
import SegueWire
import Testing

/// Hostile and broken requests never kill or wedge the daemon: each gets a clear error reply with the
/// expected code (and the request id when one could be read), the log is unchanged, and the daemon
/// then serves a normal command.
@Suite(.ownThreads, .serialized, .sharedDaemon) struct MalformedRequestTests {
    static let navigator = "m"

    @Test(arguments: MalformedCase.all) func rejectsAndStaysHealthy(_ c: MalformedCase) throws {
        let daemon = try SharedDaemon.get()
        let client = try TestClient(endpoint: daemon.commandEndpoint, kind: c.kind)
        let before = try baseline(client)
        // A REQ socket prepends the empty delimiter frame itself; a DEALER sends exactly these frames.
        try client.send(frames: c.frames)
        let reply = try client.receive()
        #expect(reply["ok"] == false, "\(reply.serialized())")
        #expect(reply["error"]?["code"] == .string(c.code.rawValue), "\(reply.serialized())")
        let message = reply["error"]?["message"]?.stringValue ?? ""
        #expect(message.count > 10 && message.count < 2000, "a short sentence, not an echo: \(message.prefix(200))")
        if let words = c.mentions { #expect(message.contains(words), "\(message)") }
        #expect(reply["id"] == c.expectedID, "\(reply.serialized())")
        #expect(reply.objectValue?.keys == ["ok", "id", "error"])
        try expectUnchanged(client, since: before)
    }

    /// A DEALER's reply is one frame, also for a message that is one empty frame (answered as a REQ's
    /// delimiter, with two frames, it would leave the client a frame out of step). An
    /// empty first frame followed by more is a REQ's envelope, as a REQ may send several frames.
    @Test func aDealerAlwaysGetsOneFrame() throws {
        let daemon = try SharedDaemon.get()
        let client = try TestClient(endpoint: daemon.commandEndpoint)
        for frames in [[[UInt8]()], [Array(MalformedCase.ping.utf8), []]] {
            try client.send(frames: frames)
            let reply = try client.receiveFrames()
            #expect(reply.count == 1, "\(frames.map(\.count)) -> \(reply.map { String(decoding: $0, as: UTF8.self) })")
        }
        try client.ok(["cmd": "ping"])
    }

    /// Past `ZMQ_MAXMSGSIZE` (1 MiB) libzmq drops the connection instead of delivering the message:
    /// no reply, and the daemon goes on serving (the same socket reconnects, and others never noticed).
    @Test func pastTheMessageSizeLimitTheSenderIsDisconnected() throws {
        let daemon = try SharedDaemon.get()
        let bystander = try TestClient(endpoint: daemon.commandEndpoint)
        let before = try baseline(bystander)
        let client = try TestClient(endpoint: daemon.commandEndpoint)
        try client.socket.monitor("inproc://monitor-big")
        let monitor = try ZMQSocket(client.context, .pair)
        try monitor.setLinger(.zero)
        try monitor.connect("inproc://monitor-big")
        defer { monitor.close() }
        try client.ok(["cmd": "ping"])
        let big = (["cmd": "ping", "pad": .string(String(repeating: "z", count: (1 << 20) + 10))] as JSON)
        try client.send(raw: big.serializedBytes())
        #expect(throws: TestClient.Timeout.self) { try client.receive(timeout: .milliseconds(500)) }
        var sawDisconnect = false
        try monitor.setReceiveTimeout(.seconds(2))
        while let frames = try monitor.receiveMultipart(), let event = ZMQMonitorEvent(frames: frames) {
            if event.kind == .disconnected {
                sawDisconnect = true
                break
            }
        }
        #expect(sawDisconnect, "the daemon closes the connection of an oversized message")
        try expectUnchanged(bystander, since: before)
        // The disconnected client reconnects by itself and is served again.
        let deadline = ContinuousClock.now + .seconds(5)
        var served = false
        while !served, ContinuousClock.now < deadline {
            served = (try? client.call(["cmd": "ping"], timeout: .milliseconds(300)))?["ok"] == true
        }
        #expect(served)
    }

    /// A burst of garbage and good requests interleaved: every one is answered, in order.
    @Test func aBurstOfMixedRequestsIsAnsweredInOrder() throws {
        let daemon = try SharedDaemon.get()
        let client = try TestClient(endpoint: daemon.commandEndpoint)
        let before = try baseline(client)
        let cases = MalformedCase.all.filter { $0.kind == .dealer && $0.frames.count == 1 }
        for (i, c) in cases.enumerated() {
            try client.send(frames: c.frames)
            try client.send(raw: (["cmd": "ping", "id": .string("good-\(i)")] as JSON).serializedBytes())
        }
        for (i, c) in cases.enumerated() {
            let bad = try client.receive()
            #expect(bad["error"]?["code"] == .string(c.code.rawValue), "\(c.name): \(bad.serialized())")
            #expect(try client.receive()["id"] == .string("good-\(i)"))
        }
        try expectUnchanged(client, since: before)
    }

    // MARK: Helpers

    struct Baseline {
        var seq: Int64
        var revision: Int64
    }

    /// Makes sure the target navigator exists, then records the log position.
    private func baseline(_ client: TestClient) throws -> Baseline {
        _ = try client.call(["cmd": "create", "navigator": .string(Self.navigator), "root": "Home"])
        let state = try client.ok(["cmd": "state", "navigator": .string(Self.navigator)])
        return Baseline(seq: try client.lastSeq(), revision: try #require(state["revision"]?.int64Value))
    }

    private func expectUnchanged(
        _ client: TestClient, since before: Baseline, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let daemon = try SharedDaemon.get()
        #expect(daemon.process.isRunning, "segued died:\n\(daemon.log.suffix(2000))", sourceLocation: sourceLocation)
        let fresh = try TestClient(endpoint: daemon.commandEndpoint)
        #expect(try fresh.lastSeq() == before.seq, "the log must be unchanged", sourceLocation: sourceLocation)
        let state = try fresh.ok(["cmd": "state", "navigator": .string(Self.navigator)])
        #expect(state["revision"] == .int(before.revision), sourceLocation: sourceLocation)
        #expect(TestClient.routes(state) == ["Home"], sourceLocation: sourceLocation)
    }
}
