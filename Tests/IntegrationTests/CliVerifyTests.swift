import Foundation
import SegueCore
import Testing

/// `segue verify` on a data dir, however it is given.
@Suite(.ownThreads) struct CliVerifyTests {
    /// A data dir's `segue.db` given as an export, a file as a data dir, an empty directory as an
    /// export: each is said as what it is, with what to give instead.
    @Test(.sqliteOnly) func aFileAndADataDirMixedUpAreSaidSo() throws {
        let d = try DaemonProcess()
        try Cli.run(["create", "main", "Home"], daemon: d)
        #expect(d.stop() == 0)
        let database = d.dataDir + "/segue.db"
        let verify = try Cli.run(["verify", database])
        #expect(verify.status == 1)
        #expect(
            verify.stderr.hasPrefix(
                "\(database) is a SQLite database, the log of the data dir \(d.dataDir), not a JSON Lines export: "),
            "\(verify.stderr)")
        let export = d.dataDir + "/e.jsonl"
        #expect(try Cli.run(["export", "--data-dir", d.dataDir, "-o", export]).status == 0)
        let asDir = try Cli.run(["export", "--data-dir", export])
        #expect(asDir.status == 74 && asDir.stderr.contains("\(export) is a file, not a data dir"), "\(asDir.stderr)")
        let empty = DaemonProcess.temporaryDirectory()
        let imported = try Cli.run(["import", empty, "--data-dir", DaemonProcess.temporaryDirectory() + "/new"])
        #expect(
            imported.status == 74 && imported.stderr.contains("\(empty) is a directory, not a JSON Lines file"),
            "\(imported.stderr)")
    }

    /// `verify -` reads standard input, and calls it that, as `import -` does.
    @Test func standardInputIsCalledSo() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        try Cli.run(["create", "main", "Home"], daemon: d)
        let export = try Cli.run(["export", "--data-dir", d.logLocation]).stdout
        let clean = try Cli.run(["verify", "-"], stdin: export)
        #expect(clean.status == 0 && clean.stdout == "standard input: ok, 1 event, 1 navigator.\n", "\(clean)")
        let bad = try Cli.run(["verify", "-"], stdin: export + "garbage\n")
        #expect(bad.status == 1)
        #expect(bad.stderr.hasPrefix("standard input line 2 is not an event: "), "\(bad.stderr)")
    }

    /// A problem at an event of a file is placed at its line, as one at a line that is no event is,
    /// and `verify --json` lists the lines stderr shows.
    @Test func aGapInAFileIsPlacedAtItsLine() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        try Cli.run(["create", "main", "Home"], daemon: d)
        try Cli.run(["push", "main", "Detail", "--no-animate"], daemon: d)
        var lines = try Cli.run(["export", "--data-dir", d.logLocation]).stdout.split(separator: "\n")
        lines.remove(at: 1)
        let file = DaemonProcess.temporaryDirectory() + "/gap.jsonl"
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let expected = "\(file) line 2 (seq 3): Event seq 3 does not follow 1; the log has a gap."
        let plain = try Cli.run(["verify", file])
        #expect(plain.status == 1 && plain.stderr == expected + "\n", "\(plain.stderr)")
        let json = try Cli.run(["verify", "--json", file])
        #expect(try JSON.parse(json.stdout)["problems"] == [.string(expected)], "\(json.stdout)")
    }

    /// A damaged index folds cleanly (the fold reads the events table), so only SQLite's own check
    /// finds it. `verify DIR`, the form docs/operations.md gives, runs that check as `--data-dir` does.
    @Test(.sqliteOnly) func aDataDirGivenAsTheArgumentGetsTheIntegrityCheck() throws {
        let daemon = try DaemonProcess()
        let client = try TestClient(endpoint: daemon.commandEndpoint)
        for name in ["nav1", "nav2", "nav3"] {
            try client.ok(["cmd": "create", "navigator": .string(name), "root": "Home"])
        }
        #expect(daemon.stop() == 0)
        let dir = daemon.dataDir
        for arguments in [["verify", dir], ["verify", "--data-dir", dir]] {
            let clean = try Cli.run(arguments)
            #expect(clean.status == 0 && clean.stdout.contains("ok, 3 events, 3 navigators."), "\(clean)")
        }

        // One byte of a navigator's name in the (navigator, revision) index's page, the WAL checkpointed
        // into the file first.
        let damage = """
            import sqlite3, sys
            path = sys.argv[1] + "/segue.db"
            db = sqlite3.connect(path)
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            size = db.execute("PRAGMA page_size").fetchone()[0]
            root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'events_navigator_revision'").fetchone()[0]
            db.close()
            data = bytearray(open(path, "rb").read())
            at = data.find(b"nav2", (root - 1) * size, root * size)
            assert at >= 0, "nav2 is not in the index's page"
            data[at + 3] = ord("9")
            open(path, "wb").write(bytes(data))
            """
        try #require(try CliLargeLogTests.python(damage, [dir]) == 0)
        for arguments in [["verify", dir], ["verify", "--data-dir", dir]] {
            let damaged = try Cli.run(arguments)
            #expect(damaged.status == 1, "\(arguments): \(damaged)")
            #expect(
                damaged.stderr.contains("\(dir): row 2 missing from index events_navigator_revision"),
                "\(arguments): \(damaged.stderr)")
        }
    }

    /// A damaged `segue.db` was read, and is no log: every command that reads it says it found a
    /// problem (status 1, `invalid_log`), as `verify` does for a failed integrity check, with what to
    /// do; not that it could not read a file (74). Whether SQLite meets the damage at open (the header)
    /// or later (a page of the events table) makes no difference.
    @Test(.sqliteOnly, arguments: ["header", "events page"])
    func aDamagedLogIsAProblemFoundByEveryReader(damage: String) throws {
        let daemon = try DaemonProcess()
        try Cli.run(["create", "main", "Home"], daemon: daemon)
        try Cli.run(["push", "main", "Detail", "--no-animate"], daemon: daemon)
        #expect(daemon.stop() == 0)
        let dir = daemon.dataDir
        let export = DaemonProcess.temporaryDirectory() + "/log.jsonl"
        #expect(try Cli.run(["export", "--data-dir", dir, "-o", export]).status == 0)
        // The WAL copied into the file and removed first: its copy of a page would stand in for the
        // damaged one. The header's first 100 bytes, or the type byte of the events table's root page.
        let script = """
            import sqlite3, sys
            path = sys.argv[1] + "/segue.db"
            db = sqlite3.connect(path)
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            db.execute("PRAGMA journal_mode=DELETE")
            size = db.execute("PRAGMA page_size").fetchone()[0]
            root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'events'").fetchone()[0]
            db.close()
            data = bytearray(open(path, "rb").read())
            if sys.argv[2] == "header":
                data[0:100] = b"A" * 100
            else:
                data[(root - 1) * size] = 0xFF
            open(path, "wb").write(bytes(data))
            """
        try #require(try CliLargeLogTests.python(script, [dir, damage]) == 0)
        let commands = [
            ["verify", dir], ["verify", "--json", dir], ["export", "--data-dir", dir],
            ["migrate", "--from", dir, "--to", DaemonProcess.temporaryDirectory() + "/copy"], ["replay", dir],
            ["import", "--data-dir", dir, export],
        ]
        for arguments in commands {
            let damaged = try Cli.run(arguments)
            #expect(damaged.status == 1, "\(damage), \(arguments): \(damaged)")
            #expect(damaged.stderr.contains("the file is damaged: restore a backup."), "\(damage), \(arguments)")
            if arguments.first == "verify" {
                #expect(damaged.stderr.split(separator: "\n").count == 1, "one damage, one problem: \(damaged.stderr)")
            }
            if arguments.contains("--json") {
                #expect(damaged.stdout.contains(#""code":"invalid_log""#), "\(damaged.stdout)")
                #expect(damaged.stdout.contains(#""events":0"#) || damage != "header", "\(damaged.stdout)")
            }
        }
    }
}
