import Foundation
import SegueCore
import Testing

/// Storage faults while serving (DESIGN.md §5): commands fail with `unavailable`, reads and
/// heartbeats go on, nothing acknowledged is lost, and service resumes once the fault clears.
@Suite(.serialized) struct ReliabilityFaultTests {
    /// A push with a fresh id and some params, so every one grows the log.
    static func push(_ client: TestClient, _ id: String) throws -> JSON {
        let params: JSON = ["padding": .string(String(repeating: "x", count: 2000))]
        return try client.call([
            "cmd": "push", "id": .string(id), "navigator": "main", "animated": false,
            "screen": ["name": "Detail", "params": params],
        ])
    }

    /// Runs the scenario around a fault: acknowledged pushes, the fault, pushes until `unavailable`,
    /// reads and heartbeats during it, then resumption and a restart that must find every ack.
    @discardableResult
    static func survive(
        _ daemon: DaemonProcess, inject: () throws -> Void, clear: () -> Void
    ) throws -> (acked: Int, refused: Int) {
        let client = try TestClient(endpoint: daemon.commandEndpoint)
        let heartbeats = try TestSubscriber(endpoint: daemon.publishEndpoint, topics: ["hb/"])
        #expect(try client.call(["cmd": "create", "navigator": "main", "root": "Home"])["ok"] == true)
        var acked: Set<String> = []
        for n in 0..<10 {
            if try push(client, "before\(n)")["ok"] == true { acked.insert("before\(n)") }
        }
        #expect(acked.count == 10)

        try inject()
        var refused = 0
        for n in 0..<400 {
            let reply = try push(client, "during\(n)")
            if reply["ok"] == true {
                acked.insert("during\(n)")
            } else {
                #expect(reply["error"]?["code"] == "unavailable", "\(reply)")
                refused += 1
                if refused == 3 { break }
            }
        }
        #expect(refused == 3, "the fault never failed a command")
        // Reads keep working; heartbeats keep coming.
        let state = try client.call(["cmd": "state", "navigator": "main"])
        #expect(state["ok"] == true)
        let beats = try heartbeats.collect(idle: .milliseconds(1500), max: .seconds(2.5))
        #expect(beats.contains { $0.topic == "hb/" }, "no heartbeat during the fault")

        clear()
        var resumed = false
        for n in 0..<50 {
            if try push(client, "after\(n)")["ok"] == true {
                acked.insert("after\(n)")
                resumed = true
                break
            }
            usleep(100_000)
        }
        #expect(resumed, "service did not resume after the fault cleared")

        #expect(daemon.stop() == 0, "log:\n\(daemon.log)")
        let restarted = try daemon.restarted()
        let reader = try TestClient(endpoint: restarted.commandEndpoint)
        let logged = try Reliability.commandIDs(reader)
        #expect(acked.subtracting(logged).isEmpty, "lost: \(acked.subtracting(logged).sorted())")
        // The refused commands left nothing behind, and the log is gapless.
        #expect(logged.filter { $0.hasPrefix("during") }.count == acked.filter { $0.hasPrefix("during") }.count)
        let seqs = try Reliability.history(reader).compactMap { $0["seq"]?.int64Value }
        #expect(seqs == Array(1...Int64(seqs.count)))
        #expect(restarted.stop() == 0)
        return (acked.count, refused)
    }

    @Test func diskFullFailsCommandsAndResumes() throws {
        let mount = try TmpfsMount(sizeKiB: 4096)
        let daemon = try DaemonProcess(dataDir: mount.path)
        try Self.survive(daemon, inject: { mount.fill() }, clear: { mount.clear() })
    }

    @Test func readOnlyDataFailsCommandsAndResumes() throws {
        let daemon = try DaemonProcess()
        var fault: ReadOnlyFault?
        try Self.survive(daemon, inject: { fault = try ReadOnlyFault(pid: daemon.pid) }, clear: { fault?.clear() })
    }
}
