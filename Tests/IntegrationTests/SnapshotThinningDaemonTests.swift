import Foundation
import SegueCore
import Testing

/// A daemon that checkpoints every 2 events thins each navigator's older snapshots, and time travel
/// through what is left gives the states it published: `state` with `at` and `history`'s digests
/// for every seq, before and after a restart (which rebuilds from the newest snapshots).
@Suite struct SnapshotThinningDaemonTests {
    @Test(.choosesItsBackends, arguments: StoreBackend.allCases)
    func timeTravelThroughThinnedSnapshotsGivesThePublishedStates(store: StoreBackend) throws {
        let dir = DaemonProcess.temporaryDirectory()
        let config = try Reliability.writeConfig(["snapshotEvery": 2], in: dir)
        var daemon = try DaemonProcess(dataDir: dir, store: store, arguments: ["--config", config])
        defer { daemon.stop() }
        let c = try TestClient(endpoint: daemon.commandEndpoint)
        let events = try TestSubscriber(endpoint: daemon.publishEndpoint, topics: ["event/"])
        try events.settle(c)
        for name in ["t1", "t2"] { try c.ok(["cmd": "create", "navigator": .string(name), "root": "Home"]) }
        // 2 × 60 push/pop pairs: 482 events, a checkpoint every 2, each navigator's snapshot spacing 64.
        for i in 0..<60 {
            for name in ["t1", "t2"] {
                try c.ok(["cmd": "push", "navigator": .string(name), "screen": .string("S\(i)"), "animated": false])
                try c.ok(["cmd": "pop", "navigator": .string(name), "animated": false])
            }
        }
        let last = try c.lastSeq()
        var published: [Int64: (navigator: String, digest: JSON?)] = [:]
        for message in try events.collect(until: { _, body in body["seq"]?.int64Value == last }) {
            published[message.body["seq"]!.int64Value!] = (
                message.body["navigator"]!.stringValue!, message.body["digest"]
            )
        }
        #expect(published.count == Int(last))
        // Checkpoints are saved behind the loop, each thinned as it is saved: the bound holds at any time.
        let rows = try Self.snapshotRows(daemon, store: store)
        // Per navigator 8 recent and one per 64 seqs of ~480 before them (about 8), not ~120 each.
        #expect(rows > 0 && rows <= 2 * 18, "\(rows) snapshot rows of t1 and t2")
        for run in ["first run", "restarted"] {
            let client = try TestClient(endpoint: daemon.commandEndpoint)
            for seq in 1...last {
                let (navigator, digest) = try #require(published[seq])
                let then = try client.ok(["cmd": "state", "navigator": .string(navigator), "at": .int(seq)])
                #expect(then["digest"] == digest, "\(run): state of \(navigator) at \(seq)")
                let page = try client.ok(["cmd": "history", "after": .int(seq - 1), "limit": 1])
                #expect(page["events"]?.arrayValue?.first?["digest"] == digest, "\(run): history at \(seq)")
            }
            if run == "first run" { daemon = try daemon.restarted(arguments: ["--config", config]) }
        }
    }

    /// A role granted what the docs asked before 0.3.0 (no `DELETE` on `snapshots`) is told at start
    /// that its checkpoints keep every snapshot, and works; granted `DELETE`, it is told nothing.
    @Test(.choosesItsBackends) func aRoleThatMayNotThinSnapshotsIsToldAtStart() throws {
        let server = try StoreBackend.server()
        let ownerURL = try StoreBackend.newDatabase()
        let database = String(ownerURL.dropFirst("postgresql:///".count).prefix { $0 != "?" })
        // The tables, made by their owner.
        try DaemonProcess(store: .sqlite, arguments: ["--store-url", ownerURL]).stop()
        let role = "r_" + UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: "")
        let admin = try server.admin(database: database)
        try admin.execute(
            """
            CREATE ROLE \(role) LOGIN;
            GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA public TO \(role);
            GRANT UPDATE ON snapshots TO \(role);
            """)
        let roleURL = ownerURL.replacingOccurrences(of: "user=segue", with: "user=\(role)")
        #expect(roleURL != ownerURL)
        let warning =
            "The role may not DELETE from snapshots: checkpoints keep every older snapshot, which then take about "
            + "as much room as the events. GRANT DELETE ON snapshots TO the role (docs/operations.md, \"Disk use\")."
        let limited = try DaemonProcess(store: .sqlite, arguments: ["--store-url", roleURL])
        #expect(limited.log.contains("<4>segued: " + warning), "\(limited.log)")
        try TestClient(endpoint: limited.commandEndpoint).ok(["cmd": "create", "navigator": "a", "root": "Home"])
        limited.stop()
        try admin.execute("GRANT DELETE ON snapshots TO \(role)")
        let granted = try DaemonProcess(store: .sqlite, arguments: ["--store-url", roleURL])
        defer { granted.stop() }
        #expect(granted.log.contains("Opened the log in PostgreSQL"), "\(granted.log)")
        #expect(!granted.log.contains("may not DELETE"), "\(granted.log)")
    }

    /// Snapshot rows of navigators (not the `#` marker and lease rows), read by the database's own
    /// client: `sqlite3` on the data dir's file, or a session on the daemon's PostgreSQL database.
    static func snapshotRows(_ daemon: DaemonProcess, store: StoreBackend) throws -> Int {
        let sql = "SELECT count(*) FROM snapshots WHERE navigator NOT LIKE '#%'"
        switch store {
        case .sqlite:
            let output = try Reliability.run("/usr/bin/sqlite3", [daemon.dataDir + "/segue.db", sql]).output
            return Int(output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        case .postgres:
            let url = try #require(daemon.storeArguments.last)
            let database = String(url.dropFirst("postgresql:///".count).prefix { $0 != "?" })
            let result = try StoreBackend.server().admin(database: database).query(sql)
            return Int(try result.int64(0, 0) ?? -1)
        }
    }
}
