import Foundation
import SegueCore
import SeguePostgres
import Testing

/// A daemon that checkpoints every 2 events thins each navigator's older snapshots, and time travel
/// through what is left gives the states it published: `state` with `at` and `history`'s digests
/// for every seq, before and after a restart (which rebuilds from the newest snapshots).
@Suite(.ownThreads) struct SnapshotThinningDaemonTests {
    @Test(.choosesItsBackends, arguments: StoreBackend.allCases)
    func timeTravelThroughThinnedSnapshotsGivesThePublishedStates(store: StoreBackend) throws {
        let dir = DaemonProcess.temporaryDirectory()
        let config = try Reliability.writeConfig(["snapshotEvery": 2], in: dir)
        var daemon = try DaemonProcess(dataDir: dir, store: store, arguments: ["--config", config])
        defer { daemon.stop() }
        let published = try Self.pushAndPop(daemon)
        // Checkpoints are saved behind the loop, each thinned as it is saved: the bound holds at any time.
        let rows = try Self.snapshotRows(daemon, store: store)
        // Per navigator 8 recent and one per 64 seqs of ~480 before them (about 8), not ~120 each.
        #expect(rows > 0 && rows <= 2 * 18, "\(rows) snapshot rows of t1 and t2")
        for run in ["first run", "restarted"] {
            try Self.expectTimeTravel(daemon, published, run)
            if run == "first run" { daemon = try daemon.restarted(arguments: ["--config", config]) }
        }
    }

    typealias Published = [Int64: (navigator: String, digest: JSON?)]

    /// 2 × 60 push/pop pairs of t1 and t2 (482 events); each event's navigator and digest as published.
    static func pushAndPop(_ daemon: DaemonProcess) throws -> Published {
        let c = try TestClient(endpoint: daemon.commandEndpoint)
        let events = try TestSubscriber(endpoint: daemon.publishEndpoint, topics: ["event/"])
        try events.settle(c)
        for name in ["t1", "t2"] { try c.ok(["cmd": "create", "navigator": .string(name), "root": "Home"]) }
        for i in 0..<60 {
            for name in ["t1", "t2"] {
                try c.ok(["cmd": "push", "navigator": .string(name), "screen": .string("S\(i)"), "animated": false])
                try c.ok(["cmd": "pop", "navigator": .string(name), "animated": false])
            }
        }
        let last = try c.lastSeq()
        var published: Published = [:]
        for message in try events.collect(until: { _, body in body["seq"]?.int64Value == last }) {
            published[message.body["seq"]!.int64Value!] = (
                message.body["navigator"]!.stringValue!, message.body["digest"]
            )
        }
        #expect(published.count == Int(last))
        return published
    }

    /// `state` with `at` and `history`'s digests give, for every seq, the digest that was published.
    static func expectTimeTravel(_ daemon: DaemonProcess, _ published: Published, _ run: String) throws {
        let client = try TestClient(endpoint: daemon.commandEndpoint)
        for seq in 1...Int64(published.count) {
            let (navigator, digest) = try #require(published[seq])
            let then = try client.ok(["cmd": "state", "navigator": .string(navigator), "at": .int(seq)])
            #expect(then["digest"] == digest, "\(run): state of \(navigator) at \(seq)")
            let page = try client.ok(["cmd": "history", "after": .int(seq - 1), "limit": 1])
            #expect(page["events"]?.arrayValue?.first?["digest"] == digest, "\(run): history at \(seq)")
        }
    }

    /// A role granted what the docs asked before 0.3.0 (no `DELETE` on `snapshots`) is told at start
    /// that its checkpoints keep every snapshot, and keeps them all. Granted `DELETE`, it is told
    /// nothing, and the next start thins what the checkpoints left, once, behind the loop: time
    /// travel still gives every published digest.
    @Test(.choosesItsBackends) func aRoleThatMayNotThinSnapshotsIsToldAtStartAndThinsOnceGranted() throws {
        // The tables, made by their owner; the role granted them as the docs asked before 0.3.0.
        let (admin, role, roleURL) = try StoreBackend.tablesAndRole(
            granting: "GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA public TO ROLE; GRANT UPDATE ON snapshots TO ROLE;")
        let dir = DaemonProcess.temporaryDirectory()
        let arguments = [
            "--store-url", roleURL, "--config", try Reliability.writeConfig(["snapshotEvery": 2], in: dir),
        ]
        let warning =
            "The role may not DELETE from snapshots: checkpoints keep every older snapshot, which then take about "
            + "as much room as the events. GRANT DELETE ON snapshots TO the role (docs/operations.md, \"Disk use\")."
        let limited = try DaemonProcess(dataDir: dir, store: .sqlite, arguments: arguments)
        #expect(limited.log.contains("<4>segued: " + warning), "\(limited.log)")
        let published = try Self.pushAndPop(limited)
        limited.stop()
        let kept = try Self.snapshotRows(admin)
        #expect(kept > 200, "\(kept) snapshot rows of t1 and t2")
        #expect(!limited.log.contains("Thinned"), "\(limited.log)")
        try admin.execute("GRANT DELETE ON snapshots TO \(role)")
        var granted = try limited.restarted(arguments: arguments)
        defer { granted.stop() }
        let thinned = "<5>segued: Thinned the snapshots checkpoints had not judged"
        for _ in 0..<500 where !granted.log.contains(thinned) { usleep(20_000) }
        let log = granted.log
        #expect(!log.contains(warning), "\(log)")
        #expect(log.contains(thinned + " (saved before 0.3.0, or without DELETE): deleted "), "\(log)")
        let rows = try Self.snapshotRows(admin)
        #expect(rows > 0 && rows <= 2 * 18, "\(rows) of \(kept) snapshot rows of t1 and t2 left")
        try Self.expectTimeTravel(granted, published, "thinned")
        // Once: the marker row says the pass went through.
        granted = try granted.restarted(arguments: arguments)
        try TestClient(endpoint: granted.commandEndpoint).ok(["cmd": "ping"])
        #expect(granted.log.contains("Ready: "), "\(granted.log)")
        #expect(!granted.log.contains(thinned), "\(granted.log)")
    }

    static func snapshotRows(_ session: PostgresConnection) throws -> Int {
        Int(try session.query("SELECT count(*) FROM snapshots WHERE navigator NOT LIKE '#%'").int64(0, 0) ?? -1)
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
            return try snapshotRows(StoreBackend.server().admin(database: database))
        }
    }
}
