import Foundation
import SegueCore
import SegueWire
import Testing

/// Group commit as clients see it: concurrent writers share syncs, a lone writer never waits for
/// anyone (`stats.store`: `commits`, `units`, `siblingWaits`).
@Suite(.ownThreads, .serialized) struct GroupCommitTests {
    @Test func loneClientCommitsEachCommandAloneWithoutWaiting() throws {
        let daemon = try DaemonProcess()
        let client = try TestClient(endpoint: daemon.commandEndpoint)
        #expect(try client.call(["cmd": "create", "navigator": "solo", "root": "Home"])["ok"] == true)
        let before = try client.call(["cmd": "stats"])["store"]
        for index in 0..<40 {
            let command: JSON =
                index % 2 == 0
                ? ["cmd": "push", "navigator": "solo", "screen": "Detail", "animated": false]
                : ["cmd": "pop", "navigator": "solo", "animated": false]
            #expect(try client.call(command)["ok"] == true)
        }
        let after = try client.call(["cmd": "stats"])["store"]
        let commits = (after?["commits"]?.int64Value ?? 0) - (before?["commits"]?.int64Value ?? 0)
        #expect(commits == 40, "one commit per command")
        #expect(after?["siblingWaits"] == before?["siblingWaits"], "nobody else was writing")
        #expect(daemon.stop() == 0, "log:\n\(daemon.log)")
    }

    /// The WAL is copied back by the store's checkpoint thread while commands go on, and `stats`
    /// says so: 800 pushes and pops write well over the 1,000 WAL pages that start a pass.
    @Test(.sqliteOnly) func walCheckpointsRunInTheBackgroundAndShowInStats() throws {
        let daemon = try DaemonProcess(arguments: ["--durability", "relaxed"])
        let client = try TestClient(endpoint: daemon.commandEndpoint)
        #expect(try client.call(["cmd": "create", "navigator": "wal", "root": "Home"])["ok"] == true)
        for index in 0..<800 {
            let command: JSON =
                index % 2 == 0
                ? ["cmd": "push", "navigator": "wal", "screen": "Detail", "animated": false]
                : ["cmd": "pop", "navigator": "wal", "animated": false]
            #expect(try client.call(command)["ok"] == true)
        }
        // The pass runs beside the commands: wait for its count (a condition, not a timing).
        var counts = try client.call(["cmd": "stats"])["store"]?["walCheckpoints"]
        let deadline = ContinuousClock.now + .seconds(30)
        while (counts?["background"]?.int64Value ?? 0) < 1, ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            counts = try client.call(["cmd": "stats"])["store"]?["walCheckpoints"]
        }
        #expect((counts?["background"]?.int64Value ?? 0) >= 1, "\(String(describing: counts))")
        #expect(counts?["failures"]?.int64Value == 0)
        #expect(counts?["forced"]?.int64Value == 0, "nothing held the WAL")
        #expect(daemon.stop() == 0, "log:\n\(daemon.log)")
    }

    /// Eight closed-loop clients on one thread, each on its own navigator: their commands share
    /// commits, and every command is in the log exactly once (gapless revisions per navigator).
    @Test(.choosesItsBackends, arguments: StoreBackend.allCases)
    func concurrentClientsShareCommits(store: StoreBackend) throws {
        let daemon = try DaemonProcess(store: store)
        let setup = try TestClient(endpoint: daemon.commandEndpoint)
        let clients = 8
        let rounds = 60
        for index in 0..<clients {
            #expect(try setup.call(["cmd": "create", "navigator": .string("n\(index)"), "root": "Home"])["ok"] == true)
        }
        let before = try setup.call(["cmd": "stats"])["store"]
        let sockets = try (0..<clients).map { _ in try TestClient(endpoint: daemon.commandEndpoint) }
        func command(_ client: Int, _ round: Int) -> [UInt8] {
            let body: JSON =
                round % 2 == 0
                ? ["cmd": "push", "navigator": .string("n\(client)"), "screen": "Detail", "animated": false]
                : ["cmd": "pop", "navigator": .string("n\(client)"), "animated": false]
            return body.serializedBytes()
        }
        var poller = ZMQPoller()
        for socket in sockets { poller.add(socket.socket) }
        var sent = [Int](repeating: 1, count: clients)
        var received = [Int](repeating: 0, count: clients)
        for (index, socket) in sockets.enumerated() { try socket.send(raw: command(index, 0)) }
        let deadline = ContinuousClock.now + .seconds(60)
        while received.reduce(0, +) < clients * rounds, ContinuousClock.now < deadline {
            let ready = try poller.poll(timeout: .milliseconds(100))
            for (index, events) in ready.enumerated() where events.contains(.readable) {
                while let reply = try sockets[index].socket.receive(dontWait: true) {
                    #expect(try JSON.parse(reply)["ok"] == true)
                    received[index] += 1
                    if sent[index] < rounds {
                        try sockets[index].send(raw: command(index, sent[index]))
                        sent[index] += 1
                    }
                }
            }
        }
        #expect(received == [Int](repeating: rounds, count: clients))
        let after = try setup.call(["cmd": "stats"])["store"]
        let commits = (after?["commits"]?.int64Value ?? 0) - (before?["commits"]?.int64Value ?? 0)
        let units = (after?["units"]?.int64Value ?? 0) - (before?["units"]?.int64Value ?? 0)
        #expect(units == Int64(clients * rounds))
        #expect(commits * 2 <= units, "\(units) units in \(commits) commits: commands did not share commits")
        #expect((after?["siblingWaits"]?.int64Value ?? 0) > (before?["siblingWaits"]?.int64Value ?? 0))
        for index in 0..<clients {
            let history = try setup.call(["cmd": "history", "navigator": .string("n\(index)"), "after": 0])
            let revisions = history["events"]?.arrayValue?.compactMap { $0["revision"]?.int64Value } ?? []
            #expect(revisions == Array(1...Int64(1 + rounds * 2)), "navigator n\(index)")
        }
        #expect(daemon.stop() == 0, "log:\n\(daemon.log)")
    }
}
