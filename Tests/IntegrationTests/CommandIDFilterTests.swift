import Foundation
import SegueCore
import SegueWire
import Testing

/// The filter of stored command ids against the real daemon (docs/protocol.md, "Idempotency"): once it
/// is ready after a restart, a retried id is still answered with its first reply, and a new id is
/// applied without a store lookup.
@Suite(.ownThreads) struct CommandIDFilterTests {
    static func push(_ id: String, _ screen: String) -> [UInt8] {
        Array(#"{"cmd":"push","id":"\#(id)","navigator":"r","screen":"\#(screen)","animated":false}"#.utf8)
    }

    /// Polls `stats` until the filter has read the stored ids.
    static func waitReady(_ client: TestClient, timeout: Duration = .seconds(20)) throws -> JSON {
        let deadline = ContinuousClock.now + timeout
        while true {
            let ids = try client.ok(["cmd": "stats"])["commandIDs"]
            if ids?["filter"] == "ready" { return ids! }
            guard ContinuousClock.now < deadline else { throw WaitTimeout(what: "the command id filter") }
            usleep(10_000)
        }
    }

    @Test func afterARestartStoredIdsAreStillAnsweredAndNewOnesSkipTheLookup() throws {
        let daemon = try DaemonProcess()
        let c = try TestClient(endpoint: daemon.commandEndpoint)
        try c.ok(["cmd": "create", "navigator": "r", "root": "Home"])
        // Ready first: an id decided while the filter loads is counted twice (noted, then met again
        // by the walk), so `ids` is exact only for ids decided once it is ready.
        #expect(try Self.waitReady(c)["ids"] == 0)
        var originals: [[[UInt8]]] = []
        for index in 0..<20 {
            try c.send(raw: Self.push("stored-\(index)", "S\(index)"))
            originals.append(try c.receiveFrames())
        }
        #expect(try c.ok(["cmd": "stats"])["commandIDs"]?["ids"] == 20)
        #expect(daemon.stop(signal: SIGKILL) == 128 + SIGKILL)

        let restarted = try daemon.restarted()
        defer { restarted.stop() }
        let after = try TestClient(endpoint: restarted.commandEndpoint)
        let ready = try Self.waitReady(after)
        #expect(ready["ids"] == 20, "the stored ids, read in the background")
        let seq = try after.lastSeq()
        for index in [0, 7, 19] {
            try after.send(raw: Self.push("stored-\(index)", "S\(index)"))
            #expect(try after.receiveFrames() == originals[index], "stored-\(index): the stored reply, byte for byte")
        }
        try after.fails(
            ["cmd": "push", "id": "stored-3", "navigator": "r", "screen": "Other", "animated": false],
            .invalidArgument)
        #expect(try after.lastSeq() == seq, "retries append nothing")

        let before = try after.ok(["cmd": "stats"])["commandIDs"]
        try after.ok(["cmd": "push", "id": "new-1", "navigator": "r", "screen": "N", "animated": false])
        let stats = try after.ok(["cmd": "stats"])
        #expect(stats["commandIDs"]?["skipped"]?.int64Value == (before?["skipped"]?.int64Value ?? 0) + 1)
        #expect(stats["commandIDs"]?["ids"] == 21)
        #expect(stats["idempotentReplays"] == 3)
        try after.send(raw: Self.push("new-1", "N"))
        #expect(try after.receive()["seq"]?.int64Value == seq + 2, "the new id is known at once")
    }
}
