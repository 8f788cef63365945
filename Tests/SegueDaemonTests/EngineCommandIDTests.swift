import Foundation
import SegueCore
import SegueWire
import Synchronization
import Testing

@testable import SegueDaemon

/// A retried id older than the engine's memory of recent replies is answered from the store through
/// the filter of stored ids: while the daemon runs (ids it noted itself) and after a restart (ids read
/// in the background). The engine runs in this process so that its memory can be shrunk from 65,536
/// replies to a few.
@Suite struct EngineCommandIDTests {
    static func push(_ id: String, _ screen: String) -> [UInt8] {
        Array(#"{"cmd":"push","id":"\#(id)","navigator":"r","screen":"\#(screen)","animated":false}"#.utf8)
    }

    @Test func retriesOlderThanTheRecentWindowGetTheFirstReply() throws {
        let directory = NSTemporaryDirectory() + "segue-engine-ids-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var originals: [String: [[UInt8]]] = [:]

        let first = try EngineThread(dataDirectory: directory, recentReplies: 4)
        var c = try Client(first.endpoint)
        try c.call(#"{"cmd":"create","navigator":"r","root":"Home"}"#)
        #expect(try c.waitReady()["ids"] == 0)
        for index in 0..<10 { originals["w-\(index)"] = try c.call(Self.push("w-\(index)", "S\(index)")) }
        for id in ["w-0", "w-5"] {
            #expect(try c.call(Self.push(id, "S\(id.dropFirst(2))")) == originals[id], "\(id), noted by this engine")
        }
        first.stop()

        let second = try EngineThread(dataDirectory: directory, recentReplies: 4)
        defer { second.stop() }
        c = try Client(second.endpoint)
        #expect(try c.waitReady()["ids"] == 10, "read in the background")
        for id in ["w-1", "w-9"] {
            #expect(try c.call(Self.push(id, "S\(id.dropFirst(2))")) == originals[id], "\(id), read from the store")
        }
        for index in 10..<20 { originals["w-\(index)"] = try c.call(Self.push("w-\(index)", "S\(index)")) }
        #expect(try c.call(Self.push("w-10", "S10")) == originals["w-10"], "noted after the restart")
        let stats = try JSON.parse(try c.call(#"{"cmd":"stats"}"#).last!)
        #expect(stats["idempotentReplays"] == 3)
        #expect(stats["commandIDs"]?["skipped"] == 10, "the ten new ids after the restart")
        #expect(stats["commandIDs"]?["ids"] == 20)
    }

    /// A lookup the store cannot answer refuses the command with `unavailable` and applies nothing:
    /// taking the id for new would fail the commit on the `commands` key, voiding every reply after
    /// the durable seq. The table is dropped behind the engine's back to make the lookup fail.
    @Test func aFailedLookupRefusesTheCommand() throws {
        let directory = NSTemporaryDirectory() + "segue-engine-ids-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let engine = try EngineThread(dataDirectory: directory, recentReplies: 1)
        defer { engine.stop() }
        let c = try Client(engine.endpoint)
        try c.call(#"{"cmd":"create","navigator":"r","root":"Home"}"#)
        _ = try c.waitReady()
        try c.call(Self.push("a", "A"))
        try c.call(Self.push("b", "B"))
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        shell.arguments = [directory + "/segue.db", "DROP TABLE commands"]
        try shell.run()
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 0)
        let ping = try JSON.parse(try c.call(#"{"cmd":"ping"}"#).last!)
        let reply = try JSON.parse(try c.call(Self.push("a", "A")).last!)
        #expect(reply["ok"] == false && reply["id"] == "a", "\(reply.serialized())")
        #expect(reply["error"]?["code"] == .string(ErrorCode.unavailable.rawValue), "\(reply.serialized())")
        #expect(reply["error"]?["message"]?.stringValue?.contains("nothing was applied") == true)
        #expect(try JSON.parse(try c.call(#"{"cmd":"ping"}"#).last!)["seq"] == ping["seq"], "nothing appended")
    }
}

/// An `Engine` running on a thread of its own, on free tcp ports.
private final class EngineThread: Sendable {
    let engine: Engine
    let endpoint: String
    private let finished = DispatchSemaphore(value: 0)

    init(dataDirectory: String, recentReplies: Int) throws {
        var options = EngineOptions(
            dataDirectory: dataDirectory, commandEndpoints: ["tcp://127.0.0.1:0"],
            publishEndpoints: ["tcp://127.0.0.1:0"])
        options.durability = .relaxed
        let engine = try Engine(options: options)
        engine.core.recentCommands = RecentCommands(capacity: recentReplies)
        let bound = Mutex<String?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let finished = self.finished
        Thread {
            do {
                try engine.run {
                    bound.withLock { $0 = engine.boundCommandEndpoints[0] }
                    ready.signal()
                }
            } catch {
                Issue.record("the engine stopped: \(error)")
                ready.signal()
            }
            finished.signal()
        }.start()
        ready.wait()
        self.engine = engine
        guard let endpoint = bound.withLock({ $0 }) else { throw CancellationError() }
        self.endpoint = endpoint
    }

    func stop() {
        engine.stop()
        finished.wait()
    }
}

/// A DEALER client: one request, one reply.
private final class Client {
    let context: ZMQContext
    let socket: ZMQSocket

    init(_ endpoint: String) throws {
        context = try ZMQContext()
        socket = try ZMQSocket(context, .dealer)
        try socket.setLinger(.zero)
        try socket.setReceiveTimeout(.seconds(5))
        try socket.connect(endpoint)
    }

    deinit {
        socket.close()
        context.terminate()
    }

    @discardableResult
    func call(_ request: String) throws -> [[UInt8]] { try call(Array(request.utf8)) }

    @discardableResult
    func call(_ request: [UInt8]) throws -> [[UInt8]] {
        try socket.send(request)
        guard let frames = try socket.receiveMultipart() else { throw CancellationError() }
        return frames
    }

    /// Polls `stats` until the filter of stored ids is ready; returns its figures.
    func waitReady() throws -> JSON {
        for _ in 0..<2000 {
            let stats = try JSON.parse(try call(#"{"cmd":"stats"}"#).last!)
            if stats["commandIDs"]?["filter"] == "ready" { return stats["commandIDs"]! }
            usleep(10_000)
        }
        throw CancellationError()
    }
}
