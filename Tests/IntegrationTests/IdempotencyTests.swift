import Foundation
import SegueCore
import SegueWire
import Testing

/// `id` as an idempotency key against the real daemon (docs/protocol.md, "Idempotency"): a retry,
/// however it is spelled, gets the first reply byte for byte and appends nothing; a different request
/// under a used id is refused with `invalid_argument` and appends nothing, before and after a restart.
@Suite(.ownThreads) struct IdempotencyTests {
    /// Spellings of the first push that are the same request: a retry must get the original reply.
    static let retries: [(String, String)] = [
        ("same bytes", #"{"cmd":"push","id":"k","navigator":"r","screen":"A","animated":false}"#),
        ("members reordered", #"{"animated":false,"screen":"A","navigator":"r","id":"k","cmd":"push"}"#),
        ("whitespace", #"{ "cmd" : "push", "id" : "k", "navigator" : "r", "screen" : "A", "animated" : false }"#),
        (
            "a null member is absent",
            #"{"cmd":"push","id":"k","navigator":"r","screen":"A","animated":false,"expect":null}"#
        ),
    ]

    /// Requests that reuse the id for something else: refused, nothing appended.
    static let others: [(String, String)] = [
        ("another screen", #"{"cmd":"push","id":"k","navigator":"r","screen":"B","animated":false}"#),
        ("another command", #"{"cmd":"pop","id":"k","navigator":"r","animated":false}"#),
        ("another navigator", #"{"cmd":"push","id":"k","navigator":"s","screen":"A","animated":false}"#),
        ("an argument added", #"{"cmd":"push","id":"k","navigator":"r","screen":"A","animated":false,"expect":1}"#),
        ("a value changed", #"{"cmd":"push","id":"k","navigator":"r","screen":"A","animated":true}"#),
    ]

    static let first = retries[0].1

    @Test(arguments: retries)
    func aRetryGetsTheFirstReply(name: String, retry: String) throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let c = try TestClient(endpoint: daemon.commandEndpoint)
        try c.ok(["cmd": "create", "navigator": "r", "root": "Home"])
        try c.send(raw: Array(Self.first.utf8))
        let original = try c.receiveFrames()
        let seq = try c.lastSeq()
        try c.send(raw: Array(retry.utf8))
        #expect(try c.receiveFrames() == original, "\(name): the first reply, byte for byte")
        #expect(try c.lastSeq() == seq, "\(name): nothing appended")
        #expect(try c.ok(["cmd": "stats"])["idempotentReplays"] == 1)
    }

    @Test(arguments: others)
    func anotherRequestUnderAUsedIdIsRefused(name: String, other: String) throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let c = try TestClient(endpoint: daemon.commandEndpoint)
        try c.ok(["cmd": "create", "navigator": "r", "root": "Home"])
        try c.ok(["cmd": "create", "navigator": "s", "root": "Home"])
        try c.send(raw: Array(Self.first.utf8))
        _ = try c.receiveFrames()
        let seq = try c.lastSeq()
        try c.send(raw: Array(other.utf8))
        let reply = try c.receive()
        #expect(reply["ok"] == false, "\(name): \(reply.serialized())")
        #expect(reply["id"] == "k", "\(name): the reply carries the id")
        #expect(
            reply["error"]?["code"] == .string(ErrorCode.invalidArgument.rawValue), "\(name): \(reply.serialized())")
        let message = reply["error"]?["message"]?.stringValue ?? ""
        #expect(message.contains("already used by a different request"), "\(message)")
        // Named like every refusal of a command on a navigator.
        let sent = try JSON.parse(Array(other.utf8))
        let prefix = "\(sent["cmd"]?.stringValue ?? "") on navigator \(sent["navigator"]?.stringValue ?? ""): "
        #expect(message.hasPrefix(prefix), "\(message)")
        #expect(try c.lastSeq() == seq, "\(name): nothing appended")
        #expect(TestClient.routes(try c.ok(["cmd": "state", "navigator": "r"])) == ["Home", "A"])
        #expect(TestClient.routes(try c.ok(["cmd": "state", "navigator": "s"])) == ["Home"])
    }

    /// After a restart the check comes from the store (the fingerprint kept with the reply), not from
    /// memory: the same outcomes.
    @Test(.choosesItsBackends, arguments: StoreBackend.allCases)
    func afterARestartTheStoreTellsRetriesFromOtherRequests(store: StoreBackend) throws {
        let daemon = try DaemonProcess(store: store)
        let c = try TestClient(endpoint: daemon.commandEndpoint)
        try c.ok(["cmd": "create", "navigator": "r", "root": "Home"])
        try c.send(raw: Array(Self.first.utf8))
        let original = try c.receiveFrames()
        let seq = try c.lastSeq()
        #expect(daemon.stop(signal: SIGKILL) == 128 + SIGKILL)
        let restarted = try daemon.restarted()
        defer { restarted.stop() }
        let after = try TestClient(endpoint: restarted.commandEndpoint)
        try after.send(raw: Array(Self.retries[1].1.utf8))
        #expect(try after.receiveFrames() == original, "the stored reply, byte for byte")
        try after.fails(
            ["cmd": "push", "id": "k", "navigator": "r", "screen": "B", "animated": false], .invalidArgument)
        #expect(try after.lastSeq() == seq)
        #expect(TestClient.routes(try after.ok(["cmd": "state", "navigator": "r"])) == ["Home", "A"])
    }
}
