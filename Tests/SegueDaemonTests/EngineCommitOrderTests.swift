import Foundation
import SegueCore
import SegueStore
import SegueWire
import Testing

@testable import SegueDaemon

/// The engine's two commit paths meet in one order: results the committer thread queued are
/// applied before those of a commit the loop then ran on its own thread.
@Suite struct EngineCommitOrderTests {
    /// A batch the committer thread stored, whose results are queued but not yet taken, and then an
    /// inline commit of the next batch that fails: the first batch's reply is `ok` (it is stored),
    /// the second's `unavailable`. Taken the other way round, the failure voided the stored
    /// batch's reply too.
    @Test func aStoredBatchIsAnsweredOkBeforeTheFailedInlineCommitAfterIt() throws {
        let directory = try TemporaryDirectory()
        let store = InterposedStore(try EventStore(path: directory.path + "/segue.db"))
        let endpoint = "ipc://\(directory.path)/commands"
        let options = EngineOptions(
            dataDirectory: directory.path, commandEndpoints: [endpoint],
            publishEndpoints: ["ipc://\(directory.path)/ticks"])
        let engine = try Engine(options: options, store: store)
        let ready = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        Thread {
            try? engine.run { ready.signal() }
            finished.signal()
        }.start()
        defer {
            engine.stop()
            finished.wait()
        }
        #expect(ready.wait(timeout: .now() + .seconds(10)) == .success)
        let client = try Client(endpoint: endpoint)
        for name in ["a", "b"] {
            let created = try client.call(#"{"cmd":"create","navigator":"\#(name)","root":"Home","id":"c\#(name)"}"#)
            try #require(created["ok"] == true, "\(created)")
        }
        store.play(.heldUntilAFailedInlineCommit(StoreError(kind: .io, message: "disk full")))
        try client.send(#"{"cmd":"push","navigator":"a","screen":"A","animated":false,"id":"stored"}"#)
        // Stored, its results held: the next command comes in a loop turn of its own.
        try #require(store.held.wait(timeout: .now() + .seconds(10)) == .success)
        try client.send(#"{"cmd":"push","navigator":"b","screen":"B","animated":false,"id":"failed"}"#)
        let replies = try [client.receive(), client.receive()]
        #expect(replies.map { $0["id"] } == ["stored", "failed"], "\(replies)")
        #expect(replies[0]["ok"] == true, "the stored batch's reply: \(replies[0])")
        #expect(replies[1]["error"]?["code"] == "unavailable", "the failed batch's reply: \(replies[1])")
        #expect(try store.base.command("stored") != nil && store.base.command("failed") == nil)
    }

    /// A DEALER that sends request text and reads reply bodies.
    final class Client {
        let context: ZMQContext
        let socket: ZMQSocket

        init(endpoint: String) throws {
            context = try ZMQContext()
            socket = try ZMQSocket(context, .dealer)
            try socket.setLinger(.zero)
            try socket.setReceiveTimeout(.seconds(10))
            try socket.connect(endpoint)
        }

        deinit {
            socket.close()
            context.terminate()
        }

        func send(_ request: String) throws { try socket.send(Array(request.utf8)) }

        func receive() throws -> JSON {
            let frames = try #require(try socket.receiveMultipart(), "no reply within 10 s")
            return try JSON.parse(frames.last!)
        }

        func call(_ request: String) throws -> JSON {
            try send(request)
            return try receive()
        }
    }
}
