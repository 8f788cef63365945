import Foundation
import SegueCore
import Synchronization
import Testing

/// One appending process per data dir: a second segued, or a `segue import`, is refused while a
/// segued runs there, and the running one goes on unharmed. (Without the writer lock both would
/// start; the second one's commits would fail on `seq` and its state would not match the log.)
@Suite(.ownThreads) struct OneWriterTests {
    @Test(.sqliteOnly) func aSecondDaemonAndAnImportAreRefusedWhileSeguedRuns() throws {
        let first = try DaemonProcess()
        defer { first.stop() }
        let client = try TestClient(endpoint: first.commandEndpoint)
        #expect(try client.call(["cmd": "create", "navigator": "main", "root": "Home"])["ok"] == true)

        let second = try DaemonProcess(dataDir: first.dataDir, waitReady: false)
        let deadline = ContinuousClock.now + .seconds(20)
        while second.process.isRunning, ContinuousClock.now < deadline { usleep(20_000) }
        #expect(!second.process.isRunning, "a second segued on the same data dir must not start")
        #expect(second.process.terminationStatus == 1)
        #expect(
            second.log.contains(
                "is already open for writing by another process (pid \(first.pid)): a segued on this data dir"),
            "\(second.log)")

        let export = first.dataDir + "/main.jsonl"
        #expect(try Cli.run(["export", "--data-dir", first.dataDir, "-o", export]).status == 0)
        let imported = try Cli.run(["import", "--data-dir", first.dataDir, export])
        #expect(imported.status == 74)
        #expect(imported.stderr.contains("already open for writing by another process (pid \(first.pid))"))

        // The running daemon never noticed.
        let push = try client.call(["cmd": "push", "navigator": "main", "screen": "Detail", "animated": false])
        #expect(push["ok"] == true, "\(push)")
    }

    /// Two daemons started together on a new data dir: the one that loses the lock leaves the log, the
    /// lock file included, to the one that won (it used to remove both as a failed start's leftovers,
    /// and a third daemon then started beside the winner). Several rounds, as the race goes either way.
    @Test(.sqliteOnly) func twoDaemonsStartedTogetherLeaveOneWriterAndItsLock() throws {
        let parent = DaemonProcess.temporaryDirectory()
        for round in 1...10 {
            let dir = parent + "/d\(round)"
            // Spawned from two threads at once, for the two starts to overlap.
            let started = Mutex<[Result<DaemonProcess, any Error>]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                let daemon = Result {
                    try DaemonProcess(dataDir: dir, waitReady: false, logPath: parent + "/\(index)-\(round).log")
                }
                started.withLock { $0.append(daemon) }
            }
            let pair = try started.withLock { try $0.map { try $0.get() } }
            defer { for daemon in pair { daemon.stop() } }
            let deadline = ContinuousClock.now + .seconds(20)
            while pair.allSatisfy(\.process.isRunning), ContinuousClock.now < deadline { usleep(20_000) }
            let lost = try #require(pair.first { !$0.process.isRunning }, "round \(round): both still running")
            let won = try #require(pair.first { $0 !== lost })
            #expect(lost.log.contains("is already open for writing by another process"), "\(lost.log)")
            try won.waitUntilReady()
            let client = try TestClient(endpoint: won.commandEndpoint)
            #expect(try client.call(["cmd": "ping"])["ok"] == true, "round \(round): \(won.log)")
            #expect(Self.holdsTheLockFile(won.pid, dir + "/segue.db.lock"), "round \(round)")

            let third = try DaemonProcess(dataDir: dir, waitReady: false, logPath: parent + "/c\(round).log")
            while third.process.isRunning, ContinuousClock.now < deadline + .seconds(20) { usleep(20_000) }
            #expect(!third.process.isRunning && third.process.terminationStatus == 1, "\(third.log)")
            third.stop()
            #expect(try client.call(["cmd": "create", "navigator": "main", "root": "Home"])["ok"] == true)
        }
    }

    /// Whether `pid` has the file at `path` open (not a removed one that was there), by inode.
    static func holdsTheLockFile(_ pid: Int32, _ path: String) -> Bool {
        var file = stat()
        guard stat(path, &file) == 0 else { return false }
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        return fds.contains { fd in
            var open = stat()
            return stat("/proc/\(pid)/fd/\(fd)", &open) == 0 && open.st_dev == file.st_dev && open.st_ino == file.st_ino
        }
    }

    /// libzmq binds an ipc endpoint by replacing its socket file, so a second daemon given the first
    /// one's ipc endpoint (its own data dir, the same config by hand) would cut the first one's
    /// clients off even though it then failed. It must refuse before binding.
    @Test func anIpcEndpointInUseIsRefusedAndTheFirstDaemonKeepsIt() throws {
        let first = try DaemonProcess(transport: .ipc)
        defer { first.stop() }
        let second = try DaemonProcess(arguments: ["--command", first.commandEndpoint], waitReady: false)
        let deadline = ContinuousClock.now + .seconds(20)
        while second.process.isRunning, ContinuousClock.now < deadline { usleep(20_000) }
        #expect(!second.process.isRunning)
        #expect(second.process.terminationStatus == 1)
        #expect(second.log.contains("\(first.commandEndpoint) is in use: another process"), "\(second.log)")
        let client = try TestClient(endpoint: first.commandEndpoint)
        #expect(try client.call(["cmd": "ping"])["ok"] == true)
    }
}

/// On PostgreSQL, daemons configured with `cluster` share a log with each other and with nothing
/// else: a segued without `cluster` or an import is refused while they serve it, and they are
/// refused while a lone segued serves it. (Without that, the lone writer appended for navigators a
/// leader leads: the leader's next commit failed on a revision, the log stayed valid but the one-
/// leader rule did not.)
@Suite(.ownThreads, .serialized, .choosesItsBackends) struct SharedLogWriterTests {
    /// Whether `daemon` exits with `status` within 30 s: 1 for a log it cannot open (a shard count the
    /// others do not share, at start, included), 78 for a running daemon that finds it later.
    static func refused(_ daemon: DaemonProcess, status: Int32 = 1) -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while daemon.process.isRunning, ContinuousClock.now < deadline { usleep(20_000) }
        return !daemon.process.isRunning && daemon.process.terminationStatus == status
    }

    /// Whether `check` exits 0 within 10 s: the server process of a daemon that has just stopped
    /// may still hold its locks for a moment.
    static func passesSoon(_ check: () throws -> (status: Int32, output: String)) throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            let result = try check()
            if result.status == 0 { return true }
            if ContinuousClock.now > deadline {
                Issue.record("still refused: \(result.output)")
                return false
            }
            usleep(100_000)
        }
    }

    @Test func aLoneWriterIsRefusedBesideClusterDaemons() throws {
        let cluster = try ShardedCluster(daemons: 1, shards: 4)
        defer { cluster.stopAll() }
        let client = try TestClient(endpoint: cluster.endpoints[0])
        try client.ok(["cmd": "create", "navigator": "main", "root": "Home"])
        let lone = try DaemonProcess(store: .sqlite, arguments: ["--store-url", cluster.url], waitReady: false)
        #expect(Self.refused(lone), "\(lone.log)")
        #expect(
            lone.log.contains("is served by daemons configured with `cluster` (PostgreSQL backend pid"), "\(lone.log)")
        let export = DaemonProcess.temporaryDirectory() + "/log.jsonl"
        #expect(try Cli.run(["export", "--data-dir", cluster.url, "-o", export]).status == 0)
        let imported = try Cli.run(["import", "--data-dir", cluster.url, export])
        #expect(imported.status == 74, "\(imported.stderr)")
        #expect(imported.stderr.contains("is served by daemons configured with `cluster`"), "\(imported.stderr)")
        // A second cluster daemon still joins, and the first goes on unharmed.
        let joined = try DaemonProcess(store: .sqlite, arguments: cluster.arguments)
        defer { joined.stop() }
        try client.ok(["cmd": "push", "navigator": "main", "screen": "Detail", "animated": false])
    }

    /// A daemon with another shard count than the running daemons' is refused (it would place names
    /// in other shards than they do); with every daemon stopped the count may change.
    @Test func anotherShardCountIsRefusedWhileDaemonsServeTheLog() throws {
        let cluster = try ShardedCluster(daemons: 1, shards: 4)
        let eight = ["--store-url", cluster.url] + (try DaemonProcess.configFile(#"{"cluster": {"shards": 8}}"#))
        // --check-config (and so a reload's check) says what the start would.
        let check = try Reliability.run(
            DaemonProcess.binary("segued"),
            ["--check-config"] + eight + ["--data-dir", DaemonProcess.temporaryDirectory()])
        #expect(check.status == 78, "\(check.output)")
        #expect(check.output.contains("cluster.shards is 8"), "\(check.output)")
        let other = try DaemonProcess(store: .sqlite, arguments: eight, waitReady: false)
        #expect(Self.refused(other), "\(other.log)")
        #expect(
            other.log.contains(
                "is shared in 4 shards by the daemons serving it, but this daemon's cluster.shards is 8"),
            "\(other.log)")
        cluster.stopAll()
        let stopped = try Self.passesSoon {
            try Reliability.run(
                DaemonProcess.binary("segued"),
                ["--check-config"] + eight + ["--data-dir", DaemonProcess.temporaryDirectory()])
        }
        #expect(stopped, "with every daemon stopped the count may change")
        let alone = try DaemonProcess(store: .sqlite, arguments: eight)
        defer { alone.stop() }
        #expect(alone.log.contains("Sharing the log with other daemons: 8 shards"), "\(alone.log)")
    }

    /// The count lowered with every daemon stopped: the rows of `shards` the old count left behind
    /// do not speak for it, so every new daemon takes the new count, and `--check-config` agrees.
    @Test func aLoweredShardCountIsTakenByEveryNewDaemon() throws {
        let eight = try ShardedCluster(daemons: 1, shards: 8)
        try eight.waitForLeader(of: 7)
        eight.stopAll()
        let check = { (shards: Int) throws -> (status: Int32, output: String) in
            try Reliability.run(
                DaemonProcess.binary("segued"),
                ["--check-config", "--store-url", eight.url]
                    + (try DaemonProcess.configFile(#"{"cluster": {"shards": \#(shards)}}"#))
                    + ["--data-dir", DaemonProcess.temporaryDirectory()])
        }
        #expect(try Self.passesSoon { try check(4) }, "the stopped daemon's count still counts")
        let four = ["--store-url", eight.url] + (try DaemonProcess.configFile(#"{"cluster": {"shards": 4}}"#))
        let first = try DaemonProcess(store: .sqlite, arguments: four)
        defer { first.stop() }
        let second = try DaemonProcess(store: .sqlite, arguments: four)
        defer { second.stop() }
        #expect(second.log.contains("Sharing the log with other daemons: 4 shards"), "\(second.log)")
        let same = try check(4)
        #expect(same.status == 0, "\(same.output)")
        let raised = try check(8)
        #expect(raised.status == 78, "\(raised.output)")
        #expect(raised.output.contains("is shared in 4 shards by the daemons serving it"), "\(raised.output)")
    }

    /// Two daemons with different counts started at the same moment on a new log (no rows of
    /// `shards` yet): each shows its count before it looks at the others', so they never both serve.
    @Test func daemonsWithDifferentCountsStartedTogetherNeverBothServe() throws {
        let url = try StoreBackend.newDatabase()
        let configs = [4, 8].map { #"{"cluster": {"shards": \#($0)}}"# }
        let daemons = try configs.map { config in
            try DaemonProcess(
                store: .sqlite, arguments: ["--store-url", url] + (try DaemonProcess.configFile(config)),
                waitReady: false)
        }
        defer { for daemon in daemons { daemon.stop() } }
        let deadline = ContinuousClock.now + .seconds(30)
        while daemons.allSatisfy(\.process.isRunning), ContinuousClock.now < deadline { usleep(20_000) }
        let refused = daemons.filter { !$0.process.isRunning }
        #expect(!refused.isEmpty, "both serve: \(daemons.map(\.log))")
        for daemon in refused {
            #expect(daemon.process.terminationStatus == 1, "\(daemon.log)")
            #expect(daemon.log.contains("every daemon on one log takes the same count"), "\(daemon.log)")
        }
    }

    /// A daemon cut off while every other daemon was restarted with another shard count finds it
    /// when its writer connects again: it stops (78), its shards given up, rather than write names
    /// to the shards the others place them in; the daemon with the count takes them and serves on.
    @Test func aDaemonThatFindsAnotherShardCountWhenItConnectsAgainStops() throws {
        let four = try ShardedCluster(daemons: 1, shards: 4)
        defer { four.stopAll() }
        let old = four.daemons[0]
        let client = try TestClient(endpoint: old.commandEndpoint)
        try client.ok(["cmd": "create", "navigator": "main", "root": "Home"])
        // Held still (its leadership session keeps the shards), its writer's session ended: no
        // running daemon shows a count, and one with 8 starts beside it.
        kill(old.pid, SIGSTOP)
        let database = String(four.url.dropFirst("postgresql:///".count).prefix { $0 != "?" })
        _ = try StoreBackend.server().admin(database: database).query(
            """
            SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted
                AND classid = 'events'::regclass::oid AND objsubid = 2
            """)
        let eight = try DaemonProcess(
            store: .sqlite,
            arguments: ["--store-url", four.url] + (try DaemonProcess.configFile(#"{"cluster": {"shards": 8}}"#)))
        defer { eight.stop() }
        kill(old.pid, SIGCONT)
        _ = try? client.call(["cmd": "push", "navigator": "main", "screen": "A", "animated": false])
        #expect(Self.refused(old, status: 78), "\(old.log)")
        #expect(
            old.log.contains("Stopping: The log at")
                && old.log.contains(
                    "is shared in 8 shards by the daemons serving it, but this daemon's cluster.shards is 4"),
            "\(old.log)")
        // Its shards were given up at its stop: the daemon with 8 takes them and serves main.
        let serving = try TestClient(endpoint: eight.commandEndpoint)
        let deadline = ContinuousClock.now + .seconds(20)
        var pushed: JSON = .null
        while pushed["ok"] != true, ContinuousClock.now < deadline {
            pushed = try serving.call(["cmd": "push", "navigator": "main", "screen": "B", "animated": false])
            if pushed["ok"] != true { usleep(100_000) }
        }
        #expect(pushed["ok"] == true, "\(pushed)\n\(eight.log)")
    }

    @Test func aClusterDaemonIsRefusedBesideALoneWriter() throws {
        let url = try StoreBackend.newDatabase()
        let lone = try DaemonProcess(store: .sqlite, arguments: ["--store-url", url])
        defer { lone.stop() }
        let member = try DaemonProcess(
            store: .sqlite,
            arguments: ["--store-url", url] + (try DaemonProcess.configFile(#"{"cluster": {"shards": 4}}"#)),
            waitReady: false)
        #expect(Self.refused(member), "\(member.log)")
        #expect(
            member.log.contains(
                "is open for writing by a segued without `cluster`, or an import (PostgreSQL backend pid"),
            "\(member.log)")
        let client = try TestClient(endpoint: lone.commandEndpoint)
        try client.ok(["cmd": "create", "navigator": "main", "root": "Home"])
    }
}
