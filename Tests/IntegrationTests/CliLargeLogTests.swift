import Foundation
import PostgresTestSupport
import SegueCore
import Testing

/// `segue import`, `verify`, `migrate`, `replay`, `watch --replay` and `timeline` on a log larger
/// than a part (`LogImport.eventsPerPart`): each holds one event or one part of the file at a time
/// (a picture, what it draws), so its memory does not grow with the log. Measured as
/// the peak RSS of the real `segue` on a log and on one four times as long:
/// the longer log's file is ~6 MB more, and a command that held its events (as they did, at 2–7 KB
/// an event) would take 25–80 MB more.
@Suite(.ownThreads, .choosesItsBackends) struct CliLargeLogTests {
    /// A valid export of `pushes` non-animated push/pop pairs over eight navigators: every event
    /// decided by the navigation core, so `verify` folds it cleanly.
    static func export(pushes: Int, to path: String) throws {
        var fleet = Fleet(clock: try FrameClock(rate: 60))
        let names = (0..<8).map { "nav\($0)" }
        var time: Int64 = 1_700_000_000_000_000_000
        var text: [UInt8] = []
        func run(_ command: NavigationCommand, _ name: String) {
            let result = fleet.execute(command, .init(), navigator: name, time: time)
            precondition(result.error == nil, "\(result.error!)")
            for var event in result.events {
                event.digest = nil  // derived: an export does not carry it
                event.json.serialize(into: &text)
                text.append(UInt8(ascii: "\n"))
            }
            time += 1_000_000
        }
        for name in names { run(.create(root: ScreenSpec(name: "Home"), config: NavigatorConfig()), name) }
        let still = TransitionOptions(animated: false)
        for round in 0..<pushes {
            let name = names[round % names.count]
            run(.push(ScreenSpec(name: "S\(round)"), still), name)
            run(.pop(still), name)
        }
        try Data(text).write(to: URL(fileURLWithPath: path))
    }

    /// Runs the built `segue` with `arguments`; its exit status and peak resident set in KiB.
    ///
    /// Through a small python3, whose `RUSAGE_CHILDREN` is the figure: a child spawned from the test
    /// process itself would report the test process's own peak (`ru_maxrss` keeps the high-water mark
    /// of the memory a child had before its exec, and a spawned child starts with its parent's).
    static func peakRSS(_ arguments: [String]) throws -> (status: Int32, kilobytes: Int) {
        let script = """
            import resource, subprocess, sys
            run = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            print(run.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, Cli.binary] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let fields = output.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard process.terminationStatus == 0, fields.count == 2 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "python3 printed \(output)"])
        }
        return (Int32(fields[0]), fields[1])
    }

    @Test func importVerifyMigrateAndReplayHoldOnePartNotTheLog() throws {
        let directory = DaemonProcess.temporaryDirectory()
        let small = directory + "/small.jsonl"
        let large = directory + "/large.jsonl"
        try Self.export(pushes: 1_500, to: small)
        try Self.export(pushes: 6_000, to: large)
        let bytes = { (path: String) in
            ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int ?? 0) / 1024
        }
        let fileGrowth = bytes(large) - bytes(small)
        #expect(fileGrowth > 3_000, "the longer file is \(fileGrowth) KiB longer")

        func measure(_ name: String, _ smallRun: [String], _ largeRun: [String], growth: Int = fileGrowth) throws {
            let a = try Self.peakRSS(smallRun)
            let b = try Self.peakRSS(largeRun)
            #expect(a.status == 0 && b.status == 0, "\(name) exited \(a.status), \(b.status)")
            print("segue \(name): peak RSS \(a.kilobytes) KiB, 4× the log \(b.kilobytes) KiB (log +\(growth) KiB)")
            // Holding the log would add more than its growth; a part at a time adds only allocator noise.
            #expect(
                b.kilobytes - a.kilobytes < growth / 2,
                "\(name): \(a.kilobytes) KiB for the log, \(b.kilobytes) KiB for one 4× as long (+\(growth) KiB)")
        }
        let commands: [(name: String, small: [String], large: [String])] = [
            (
                "import", ["import", "--data-dir", directory + "/a", small],
                ["import", "--data-dir", directory + "/b", large]
            ),
            ("verify", ["verify", small], ["verify", large]),
            (
                "verify --data-dir", ["verify", "--data-dir", directory + "/a"],
                ["verify", "--data-dir", directory + "/b"]
            ),
            ("replay", ["replay", small, "--json"], ["replay", large, "--json"]),
            ("watch --replay", ["watch", "--replay", small, "--json"], ["watch", "--replay", large, "--json"]),
            ("replay --data-dir", ["replay", directory + "/a"], ["replay", directory + "/b"]),
            // The last hundred events drawn: the three or four thousand folded before them are not held.
            (
                "timeline --from", ["timeline", small, "--from", "\(try Self.lineCount(small) - 100)"],
                ["timeline", large, "--from", "\(try Self.lineCount(large) - 100)"]
            ),
        ]
        for (name, smallRun, largeRun) in commands { try measure(name, smallRun, largeRun) }
        if let server = PostgresTestServer.shared {
            let names = ["small", "large", "ids", "moreids"].map {
                "d_\($0)_\(UUID().uuidString.prefix(8).lowercased())"
            }
            for name in names { try server.admin().execute("CREATE DATABASE \(name)") }
            let urls = names.map { StoreBackend.url(server, database: $0) }
            try measure(
                "migrate", ["migrate", "--from", directory + "/a", "--to", urls[0]],
                ["migrate", "--from", directory + "/b", "--to", urls[1]])
            // The stored commands come along a page at a time too: the same events with 12,000 or
            // 48,000 ids (of commands that appended nothing), each with a 300-byte reply. The first
            // pages fill the caches; past them, holding the ids would add more than the replies' text.
            let replies = [12_000, 48_000]
            for (name, count) in zip(names[2...], replies) {
                let copy = try Cli.run([
                    "migrate", "--from", directory + "/a", "--to", StoreBackend.url(server, database: name),
                ])
                #expect(copy.status == 0, "\(copy.stderr)")
                try server.admin(database: name).execute(
                    "INSERT INTO commands (id, navigator, seq, reply, fingerprint) SELECT convert_to('id-' || i, "
                        + "'UTF8'), 'nav1', NULL, '{\"ok\":true,\"note\":\"' || repeat('x', 280) || '\"}', i "
                        + "FROM generate_series(1, \(count)) i")
            }
            try measure(
                "migrate with command ids", ["migrate", "--from", urls[2], "--to", directory + "/c"],
                ["migrate", "--from", urls[3], "--to", directory + "/d"], growth: (replies[1] - replies[0]) * 300 / 1024
            )
        } else {
            print("⚠︎ SKIPPED: migrate's memory, which needs PostgreSQL: \(PostgresTestServer.unavailableReason ?? "")")
        }
        let copied = try Cli.run(["export", "--data-dir", directory + "/b"]).stdout.split(separator: "\n")
        let original = try String(contentsOfFile: large, encoding: .utf8).split(separator: "\n")
        let differing = zip(copied, original).enumerated().first { $0.element.0 != $0.element.1 }
        #expect(
            copied.count == original.count && differing == nil,
            "the import's export differs at line \((differing?.offset).map { $0 + 1 } ?? min(copied.count, original.count) + 1): \(differing.map { "\($0.element.0) against \($0.element.1)" } ?? "lengths \(copied.count), \(original.count)")"
        )
    }

    static func lineCount(_ path: String) throws -> Int {
        try Data(contentsOf: URL(fileURLWithPath: path)).count { $0 == UInt8(ascii: "\n") }
    }

    /// An export of `pushes` push/pop pairs (`export`) and a data dir it was imported into.
    static func importedLog(pushes: Int) throws -> (file: String, dataDir: String) {
        let directory = DaemonProcess.temporaryDirectory()
        let file = directory + "/log.jsonl"
        try export(pushes: pushes, to: file)
        let dataDir = directory + "/a"
        let imported = try Cli.run(["import", "--data-dir", dataDir, file])
        try #require(imported.status == 0, "\(imported.stderr)")
        return (file, dataDir)
    }

    /// Runs `statements` on a data dir's `segue.db` with its UPDATE trigger dropped (python3's sqlite3).
    static func damage(_ dataDir: String, _ statements: [String]) throws {
        let script =
            "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('DROP TRIGGER events_no_update'); "
            + "[c.execute(s) for s in sys.argv[2:]]; c.commit()"
        try #require(try python(script, [dataDir + "/segue.db"] + statements) == 0)
    }

    /// `replay` and `timeline` (whose reading `view --replay` shares) with `--to` on a stored log read
    /// no event past it (the one after, where the replay stops, aside), as they read a file: shown by
    /// an event past it that cannot be read, which a read of the whole log reports.
    @Test func aStoredLogIsReadOnlyUpToTo() throws {
        let (file, dataDir) = try Self.importedLog(pushes: 40)
        var logs: [(name: String, place: String)] = []
        if let server = PostgresTestServer.shared {
            let database = "d_to_\(UUID().uuidString.prefix(8).lowercased())"
            try server.admin().execute("CREATE DATABASE \(database)")
            let url = StoreBackend.url(server, database: database)
            let copy = try Cli.run(["migrate", "--from", dataDir, "--to", url])
            try #require(copy.status == 0, "\(copy.stderr)")
            try server.admin(database: database).execute(
                "ALTER TABLE events DISABLE TRIGGER events_append_only; UPDATE events SET data = '[]' WHERE seq = 50")
            logs.append(("PostgreSQL", url))
        } else {
            print(
                "⚠︎ SKIPPED: the PostgreSQL rows, which need PostgreSQL: \(PostgresTestServer.unavailableReason ?? "")")
        }
        try Self.damage(dataDir, ["UPDATE events SET data = '[' WHERE seq = 50"])
        logs.append(("SQLite", dataDir))
        let fromFile = try Cli.run(["replay", file, "--to", "45", "--json"])
        try #require(fromFile.status == 0 && !fromFile.stdout.isEmpty, "\(fromFile.stderr)")
        for (name, place) in logs {
            let whole = try Cli.run(["replay", place, "--json"])
            #expect(whole.status != 0 && whole.stderr.contains("Event 50"), "\(name): \(whole.stderr)")
            let replay = try Cli.run(["replay", place, "--to", "45", "--json"])
            #expect(replay.status == 0 && replay.stdout == fromFile.stdout, "\(name): \(replay.stderr)")
            let timeline = try Cli.run(["timeline", place, "--to", "45"])
            #expect(timeline.status == 0 && timeline.stdout.contains("<svg"), "\(name): \(timeline.stderr)")
            let wholeTimeline = try Cli.run(["timeline", place])
            #expect(wholeTimeline.status != 0 && wholeTimeline.stderr.contains("Event 50"), "\(name)")
        }
    }

    /// An event of a stored log that does not fold ends the read there, and is what the error names:
    /// an unreadable event further on is never reached (it was, and its read error replaced the fold's).
    /// `watch --replay` folds as it reads, past the 200 events it first holds for the frame rate
    /// (`replay` and `timeline` read the whole range first).
    @Test func aStoredLogIsReadNoFurtherThanAnEventThatDoesNotFold() throws {
        let (_, dataDir) = try Self.importedLog(pushes: 100)
        try Self.damage(
            dataDir,
            ["UPDATE events SET revision = 999 WHERE seq = 300", "UPDATE events SET data = '[' WHERE seq = 350"])
        for command in [["watch", "--replay", dataDir, "--json"]] {
            let run = try Cli.run(command)
            #expect(run.status != 0, "\(command)")
            #expect(
                run.stderr.contains("Event 300 has revision 999") && !run.stderr.contains("Event 350"),
                "\(command): \(run.stderr)")
        }
    }

    /// An export cut short (here by an event it cannot read; Ctrl-C alike) leaves the file it was to
    /// replace as it was, and nothing of its own beside it: it used to leave a short export, which
    /// `verify` passed as a whole log.
    @Test func anExportCutShortLeavesTheFileAsItWas() throws {
        let (_, dataDir) = try Self.importedLog(pushes: 40)
        let directory = DaemonProcess.temporaryDirectory()
        let output = directory + "/backup.jsonl"
        let whole = try Cli.run(["export", "--data-dir", dataDir, "-o", output])
        try #require(whole.status == 0, "\(whole.stderr)")
        let before = try Data(contentsOf: URL(fileURLWithPath: output))
        try Self.damage(dataDir, ["UPDATE events SET data = '[' WHERE seq = 50"])
        let cut = try Cli.run(["export", "--data-dir", dataDir, "-o", output])
        #expect(cut.status != 0 && cut.stderr.contains("Event 50"), "\(cut.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["backup.jsonl"])
    }

    /// Runs `python3 -c script arguments…`; its exit status.
    static func python(_ script: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + arguments
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// A replay reads its log twice (the rate and range, then the frames): from standard input, which
    /// can be read once, it copies the log to a temporary file first, and prints what it prints for
    /// the file.
    @Test func aReplayFromStandardInputIsTheReplayOfTheFile() throws {
        let file = DaemonProcess.temporaryDirectory() + "/log.jsonl"
        try Self.export(pushes: 40, to: file)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        for options in [["--json"], ["--json", "--from", "30", "--to", "60"], ["--navigator", "nav3"]] {
            let fromFile = try Cli.run(["replay", file] + options)
            let fromInput = try Cli.run(["replay", "-"] + options, stdin: text)
            #expect(fromFile.status == 0 && fromInput.status == 0, "\(fromFile.stderr)\(fromInput.stderr)")
            #expect(!fromFile.stdout.isEmpty && fromInput.stdout == fromFile.stdout, "\(options)")
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())
        #expect(!leftovers.contains { $0.hasPrefix("segue-replay-") }, "the copy of standard input is removed")
    }
}
