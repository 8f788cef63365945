import Foundation
import SegueCore
import Testing

/// `segue migrate` and the store commands on a PostgreSQL URL (docs/cli.md, `segue migrate`): a log
/// copied SQLite → PostgreSQL → SQLite exports byte for byte as the original, and replays to the same
/// ticks from any of the three.
@Suite(.ownThreads, .choosesItsBackends) struct CliMigrateTests {
    /// A stopped daemon's data dir with a log of animated and interactive transitions.
    static func recordedDataDir() throws -> String {
        let daemon = try DaemonProcess()
        let c = try TestClient(endpoint: daemon.commandEndpoint)
        try c.ok(["cmd": "create", "id": "c1", "navigator": "m", "root": "Home"])
        try c.ok(["cmd": "push", "id": "c2", "navigator": "m", "screen": "A", "animator": ["duration": 0.1]])
        try c.waitIdle("m")
        try c.ok(["cmd": "begin", "navigator": "m", "operation": "pop", "owner": "f"])
        try c.ok(["cmd": "update", "navigator": "m", "percent": 0.5, "owner": "f"])
        try c.ok(["cmd": "end", "navigator": "m", "percent": 0.9, "owner": "f"])
        try c.waitIdle("m")
        try c.ok(["cmd": "present", "id": "c3", "navigator": "m", "screen": "Sheet", "animated": false])
        #expect(daemon.stop() == 0)
        return daemon.dataDir
    }

    @Test func sqliteToPostgresToSqliteIsExact() throws {
        let url = try StoreBackend.newDatabase()
        let original = try Self.recordedDataDir()
        let back = DaemonProcess.temporaryDirectory() + "/back"

        let there = try Cli.run(["migrate", "--from", original, "--to", url])
        #expect(there.status == 0, "\(there.stderr)")
        #expect(there.stdout.contains("its export is byte-identical"), "\(there.stdout)")
        let again = try Cli.run(["migrate", "--from", original, "--to", url])
        #expect(again.status == 1)
        #expect(again.stderr.contains("migrate copies a log into an empty one only"), "\(again.stderr)")
        // Under --json, the refusal is an object on stdout, as every failure is (docs/cli.md).
        let refused = try Cli.run(["migrate", "--from", original, "--to", url, "--json"])
        #expect(refused.status == 1)
        let object = try JSONSerialization.jsonObject(with: Data(refused.stdout.utf8)) as? [String: Any]
        let error = object?["error"] as? [String: Any]
        #expect(object?["ok"] as? Bool == false && error?["code"] as? String == "conflict", "\(refused.stdout)")
        #expect((error?["message"] as? String)?.contains("already holds") == true, "\(refused.stdout)")
        let home = try Cli.run(["migrate", "--from", url, "--to", back, "--json"])
        #expect(home.status == 0, "\(home.stderr)")

        var exports: [String] = []
        for place in [original, url, back] {
            let export = try Cli.run(["export", "--data-dir", place])
            #expect(export.status == 0, "\(place): \(export.stderr)")
            exports.append(export.stdout)
        }
        #expect(!exports[0].isEmpty)
        #expect(exports[1] == exports[0], "PostgreSQL's export differs from the original's")
        #expect(exports[2] == exports[0], "the copy back differs from the original")

        var ticks: [String] = []
        for place in [original, url, back] {
            let replay = try Cli.run(["replay", place, "--json"])
            #expect(replay.status == 0, "\(place): \(replay.stderr)")
            ticks.append(replay.stdout)
        }
        #expect(ticks[0].split(separator: "\n").count > 10, "the log's transitions make ticks")
        #expect(ticks[1] == ticks[0] && ticks[2] == ticks[0], "the same ticks from every copy")

        let verify = try Cli.run(["verify", "--data-dir", url])
        #expect(verify.status == 0 && verify.stdout.contains(": ok, "), "\(verify.stdout)\(verify.stderr)")
    }

    /// The stored command ids travel with the events, both ways: a client retrying a command applied
    /// before the move gets the reply it got then, and nothing is applied a second time.
    /// A source that a segued still writes is copied as it was when read, and the operator is told
    /// that what it appends later is not in the target; a stopped one is copied without a word.
    @Test(arguments: StoreBackend.allCases)
    func aSourceADaemonStillWritesIsSaid(_ backend: StoreBackend) throws {
        let daemon = try DaemonProcess(store: backend)
        defer { daemon.stop() }
        try TestClient(endpoint: daemon.commandEndpoint).ok(["cmd": "create", "navigator": "m", "root": "Home"])
        let target = DaemonProcess.temporaryDirectory() + "/copy"
        let live = try Cli.run(["migrate", "--from", daemon.logLocation, "--to", target])
        #expect(live.status == 0, "\(live.stderr)")
        let said = backend == .sqlite ? "process \(daemon.pid) (segued)" : "a session (PostgreSQL backend pid"
        #expect(
            live.stderr.contains("warning: \(daemon.logLocation) is open for writing by \(said)"), "\(live.stderr)")
        #expect(live.stderr.contains("what it appends after this copy's read is not in \(target)"), "\(live.stderr)")

        #expect(daemon.stop() == 0)
        let stopped = try Cli.run(["migrate", "--from", daemon.logLocation, "--to", target + "2"])
        #expect(stopped.status == 0, "\(stopped.stderr)")
        #expect(!stopped.stderr.contains("warning"), "\(stopped.stderr)")
    }

    @Test func aMigratedLogAnswersRetriesOfEarlierCommands() throws {
        let daemon = try DaemonProcess(store: .sqlite)
        let c = try TestClient(endpoint: daemon.commandEndpoint)
        let push: JSON = ["cmd": "push", "id": "p1", "navigator": "m", "screen": "A", "animated": false]
        let present: JSON = ["cmd": "present", "id": "p2", "navigator": "m", "screen": "S", "animated": false]
        try c.ok(["cmd": "create", "id": "c1", "navigator": "m", "root": "Home"])
        let replies = [try c.ok(push), try c.ok(present)]
        let seq = try c.lastSeq()
        #expect(daemon.stop() == 0)

        let url = try StoreBackend.newDatabase()
        let back = DaemonProcess.temporaryDirectory() + "/back"
        let there = try Cli.run(["migrate", "--from", daemon.dataDir, "--to", url])
        #expect(there.status == 0, "\(there.stderr)")
        #expect(there.stdout.contains("and 3 command ids"), "\(there.stdout)")
        let home = try Cli.run(["migrate", "--from", url, "--to", back, "--json"])
        #expect(home.status == 0, "\(home.stderr)")
        #expect(home.stdout.contains("\"commands\":3"), "\(home.stdout)")

        for copy in [
            try DaemonProcess(store: .sqlite, arguments: ["--store-url", url]),
            try DaemonProcess(dataDir: back, store: .sqlite),
        ] {
            let client = try TestClient(endpoint: copy.commandEndpoint)
            #expect(try client.ok(push) == replies[0], "\(copy.logLocation)")
            #expect(try client.ok(present) == replies[1], "\(copy.logLocation)")
            #expect(try client.lastSeq() == seq, "a retry appends nothing (\(copy.logLocation))")
            // A different request under a used id is still refused: the fingerprint came along too.
            try client.fails(["cmd": "push", "id": "p1", "navigator": "m", "screen": "B"], .invalidArgument)
            #expect(copy.stop() == 0)
        }
    }

    /// import onto a PostgreSQL log checks continuity as on a data dir: the same export twice is refused.
    @Test func importOnPostgresRefusesAnExportThatDoesNotContinueTheLog() throws {
        let url = try StoreBackend.newDatabase()
        let original = try Self.recordedDataDir()
        let file = DaemonProcess.temporaryDirectory() + "/log.jsonl"
        #expect(try Cli.run(["export", "--data-dir", original, "-o", file]).status == 0)
        let first = try Cli.run(["import", "--data-dir", url, file])
        #expect(first.status == 0, "\(first.stderr)")
        let second = try Cli.run(["import", "--data-dir", url, file])
        #expect(second.status == 1)
        #expect(second.stderr.contains("importing it would repeat them"), "\(second.stderr)")
    }

    /// A migrate ended by Ctrl-C leaves no copy of the log in the temporary directory (it is as large
    /// as the log); one killed outright leaves it, and the next migrate removes it once that process
    /// is gone, not while it runs.
    @Test func aMigrateEndedEarlyLeavesNoCopyOfTheLogBehind() throws {
        let temporary = DaemonProcess.temporaryDirectory()
        let environment = ["TMPDIR": temporary + "/"]
        let daemon = try DaemonProcess(store: .sqlite)
        try ProtocolCommandTests.longLog(try TestClient(endpoint: daemon.commandEndpoint), pairs: 1500)
        #expect(daemon.stop() == 0)

        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let stale = "\(temporary)/segue-migrate-\(gone.processIdentifier)-export.jsonl"
        let running = "\(temporary)/segue-migrate-\(getpid())-export.jsonl"
        for file in [stale, running] {
            #expect(FileManager.default.createFile(atPath: file, contents: Data("{}".utf8)))
        }

        var interrupted = false
        for attempt in 0..<5 where !interrupted {
            let migrate = try CliBackground(
                ["migrate", "--from", daemon.dataDir, "--to", "\(temporary)/copy\(attempt)"], environment: environment)
            let copy = "\(temporary)/segue-migrate-\(migrate.process.processIdentifier)-export.jsonl"
            let deadline = ContinuousClock.now + .seconds(20)
            while !FileManager.default.fileExists(atPath: copy), migrate.process.isRunning,
                ContinuousClock.now < deadline
            {
                usleep(500)
            }
            // Stopped, so that Ctrl-C comes while the copy exists: it is delivered on SIGCONT.
            kill(migrate.process.processIdentifier, SIGSTOP)
            if FileManager.default.fileExists(atPath: copy) {
                kill(migrate.process.processIdentifier, SIGINT)
                interrupted = true
            }
            kill(migrate.process.processIdentifier, SIGCONT)
            migrate.finish(timeout: .seconds(30))
            if interrupted {
                #expect(migrate.process.terminationReason == .uncaughtSignal, "\(migrate.stderr)")
                #expect(!FileManager.default.fileExists(atPath: copy), "the export copy was left behind")
                #expect(
                    !FileManager.default.fileExists(atPath: copy.replacingOccurrences(of: "-export", with: "-check")))
            }
        }
        #expect(interrupted, "no migrate was caught while its copy existed")
        #expect(!FileManager.default.fileExists(atPath: stale), "the stale copy of a process that is gone stays")
        #expect(FileManager.default.fileExists(atPath: running), "a running process's copy was removed")
    }
}
