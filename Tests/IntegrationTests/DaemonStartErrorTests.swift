import Foundation
import SegueCore
import Testing

/// What the real `segued` writes when it will not start: a bad config file is a log record with its
/// journald priority, like every other line of the daemon's, so `journalctl -p err` shows why the
/// unit failed; `--check-config` and command-line mistakes answer the person typing. Never a blank line.
@Suite(.ownThreads) struct DaemonStartErrorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var config: String?
        var arguments: [String]
        var status: Int32
        var output: String
        var testDescription: String { output }
    }

    static let cases: [Case] = [
        Case(
            config: #"{"bogus": 1}"#, arguments: [], status: 78,
            output: "<2>segued: config error in FILE at $.bogus: unknown key; expected one of dataDir, "),
        Case(
            config: #"{"frameRate": 0}"#, arguments: [], status: 78,
            output: "<2>segued: config error in FILE at $.frameRate: must be an integer from 1 to 1000; got 0\n"),
        Case(
            config: #"{"bogus": 1}"#, arguments: ["--check-config"], status: 78,
            output: "segued: config error in FILE at $.bogus: unknown key; expected one of dataDir, "),
        Case(
            config: nil, arguments: ["--frobnicate"], status: 64,
            output: "segued: unknown option '--frobnicate'\nRun 'segued --help' for usage.\n"),
        // A host name passes as an endpoint but cannot be bound: the check says so, not the start.
        Case(
            config: #"{"command": ["tcp://localhost:7985"]}"#, arguments: ["--check-config"], status: 78,
            output:
                "segued: config error in FILE at $.command[0]: 'tcp://localhost:7985' binds host 'localhost', which "
                + "is neither an address nor a network interface of this machine;"),
        Case(
            config: nil, arguments: ["--check-config", "--publish", "tcp://segue.invalid:7986"], status: 64,
            output: "segued: invalid value 'tcp://segue.invalid:7986' for '--publish': 'tcp://segue.invalid:7986' "
                + "binds host 'segue.invalid',"),
    ]

    /// A data dir on a read-only mount, as the unit's ProtectSystem=strict makes every directory but
    /// its own: the refusal says where to let it write. In a mount namespace of its own (unshare).
    @Test func aReadOnlyDataDirPointsToReadWritePaths() throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else {
            print("⚠︎ SKIPPED: a read-only data dir needs root and unshare(1) for a mount namespace")
            return
        }
        let dir = DaemonProcess.temporaryDirectory() + "/data"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let result = try Reliability.run(
            "/usr/bin/unshare",
            [
                "-m", "--propagation", "private", "/bin/sh", "-c",
                "mount --bind -o ro \"$1\" \"$1\" && exec \"$2\" --data-dir \"$1\" --command tcp://127.0.0.1:* "
                    + "--publish tcp://127.0.0.1:*",
                "sh", dir, DaemonProcess.binary("segued"),
            ])
        #expect(result.status == 1, "\(result.output)")
        #expect(
            result.output.contains(
                "Read-only file system (errno 30). The data dir must be writable. Under systemd's ProtectSystem= "
                    + "(the packaged unit), add the data dir to ReadWritePaths= in a drop-in (systemctl edit segued)."),
            "\(result.output)")
    }

    /// libzmq deletes whatever an ipc path names before it binds: an endpoint written over a log
    /// (a slip of the path) would turn `segue.db` into a socket. segued refuses it before anything
    /// is bound, and the log stays as it was.
    @Test(.sqliteOnly) func anIPCEndpointOverAFileIsRefusedAndTheFileKept() throws {
        let daemon = try DaemonProcess()
        try TestClient(endpoint: daemon.commandEndpoint).ok(["cmd": "create", "navigator": "main", "root": "Home"])
        #expect(daemon.stop() == 0)
        let log = daemon.dataDir + "/segue.db"
        let endpoint = "ipc://" + log
        let dir = DaemonProcess.temporaryDirectory()
        let flag = try Reliability.run(
            DaemonProcess.binary("segued"),
            ["--data-dir", dir + "/data", "--command", "tcp://127.0.0.1:*", "--publish", endpoint])
        #expect(flag.status == 64, "\(flag.output)")
        #expect(
            flag.output.contains(
                "'\(endpoint)' names a regular file, not a socket: binding would delete it (libzmq replaces "
                    + "whatever is at an ipc path); choose a path where nothing else lives"), "\(flag.output)")
        let config = dir + "/segued.json"
        try #"{"command": ["tcp://127.0.0.1:*"], "publish": ["\#(endpoint)"]}"#.write(
            toFile: config, atomically: true, encoding: .utf8)
        let check = try Reliability.run(
            DaemonProcess.binary("segued"), ["--check-config", "--config", config, "--data-dir", dir + "/data"])
        #expect(check.status == 78, "\(check.output)")
        #expect(check.output.contains("at $.publish[0]: '\(endpoint)' names a regular file"), "\(check.output)")

        let verify = try Cli.run(["verify", daemon.dataDir])
        #expect(verify.status == 0, "the log is untouched: \(verify)")
    }

    /// A start whose second bind fails (a port taken) closes what it bound first: libzmq unlinks an
    /// ipc socket file only when its listener closes, and segued exits right after.
    @Test func aFailedBindLeavesNoIPCSocketFileBehind() throws {
        let busy = try DaemonProcess()
        defer { busy.stop() }
        let dir = DaemonProcess.temporaryDirectory()
        let socket = dir + "/run/c.sock"
        let result = try Reliability.run(
            DaemonProcess.binary("segued"),
            ["--data-dir", dir + "/data", "--command", "ipc://" + socket, "--publish", busy.publishEndpoint])
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains("Address already in use"), "\(result.output)")
        #expect(!FileManager.default.fileExists(atPath: socket), "left behind: \(socket)")
    }

    /// A clean stop removes the ipc socket files segued bound (libzmq would only once their listeners
    /// were torn down, which a process that exits does not wait for), but not a socket another
    /// process bound at the same path since.
    @Test func aCleanStopRemovesItsIPCSocketFiles() throws {
        let daemon = try DaemonProcess(transport: .ipc)
        let files = [daemon.commandEndpoint, daemon.publishEndpoint].map { String($0.dropFirst("ipc://".count)) }
        #expect(files.allSatisfy { FileManager.default.fileExists(atPath: $0) })
        #expect(daemon.stop() == 0)
        for file in files { #expect(!FileManager.default.fileExists(atPath: file), "left behind: \(file)") }

        let again = try DaemonProcess(dataDir: daemon.dataDir, store: .sqlite, transport: .ipc)
        // Another daemon now listens at the command path (the file was deleted under the first one):
        // the first one's stop must leave that socket alone.
        let command = files[0]
        #expect(unlink(command) == 0)
        let other = try DaemonProcess(arguments: ["--command", "ipc://" + command])
        defer { other.stop() }
        #expect(again.stop() == 0)
        #expect(FileManager.default.fileExists(atPath: command), "another process's socket was removed")
        #expect(!FileManager.default.fileExists(atPath: files[1]))
        #expect(try TestClient(endpoint: "ipc://" + command).call(["cmd": "ping"])["ok"] == true)
    }

    /// A log keeps the frame rate it was started at: `--check-config` reads it from the log (read
    /// only) and refuses another rate as the start would, before an upgrade or a change finds out.
    @Test func checkConfigRefusesAnotherFrameRateThanTheLogs() throws {
        let dir = DaemonProcess.temporaryDirectory()
        func check(_ rate: String) throws -> (status: Int32, output: String) {
            let result = try Reliability.run(
                DaemonProcess.binary("segued"), ["--check-config", "--data-dir", dir, "--frame-rate", rate])
            return (result.status, result.output)
        }
        #expect(try check("30").status == 0, "no log yet: any rate")
        let daemon = try DaemonProcess(dataDir: dir, store: .sqlite)
        _ = try TestClient(endpoint: daemon.commandEndpoint).ok(["cmd": "create", "navigator": "main", "root": "Home"])
        let refused = try check("30")
        #expect(refused.status == 78, "\(refused.output)")
        #expect(
            refused.output.hasPrefix(
                "segued: config error at --frame-rate: the log numbers its frames at 60 Hz (navigator \"main\" was "
                    + "created at that rate), not 30 Hz"), "\(refused.output)")
        #expect(try check("60").status == 0, "checked beside the running daemon")
        #expect(daemon.stop() == 0)
        #expect(try check("30").status == 78)
    }

    /// A data dir whose `segue.db` is not a database: said of that file, at the key that chose it.
    @Test func checkConfigNamesADamagedLogFile() throws {
        let dir = DaemonProcess.temporaryDirectory()
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: dir + "/segue.db"))
        let result = try Reliability.run(DaemonProcess.binary("segued"), ["--check-config", "--data-dir", dir])
        #expect(result.status == 78, "\(result.output)")
        #expect(
            result.output.contains(
                "segued: store error at --data-dir: SQLite at \(dir)/segue.db: file is not a database"),
            "\(result.output)")
    }

    /// A log whose last page is damaged (the start reads the log's end first): `--check-config`
    /// refuses it as the start does, and both name the file and what to do, where the start said
    /// only SQLite's `database disk image is malformed`.
    @Test(.sqliteOnly) func aDamagedLastPageIsRefusedByTheCheckAndNamedByTheStart() throws {
        let dir = DaemonProcess.temporaryDirectory()
        let file = dir + "/log.jsonl"
        try CliLargeLogTests.export(pushes: 600, to: file)
        let data = dir + "/data"
        try #require(try Cli.run(["import", "--data-dir", data, file]).status == 0)
        // The file's last page is the events table's last leaf: its header overwritten.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: data + "/segue.db"))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size - 4096)
        try handle.write(contentsOf: Data(repeating: 0xFF, count: 12))
        try handle.close()
        let advice =
            "The file \(data)/segue.db is damaged: 'segue verify --data-dir \(data)' lists what it finds; restore a "
            + "backup (docs/operations.md, \"Backup\")."
        let check = try Reliability.run(DaemonProcess.binary("segued"), ["--check-config", "--data-dir", data])
        #expect(check.status == 78 && check.output.contains(advice), "\(check.output)")
        let start = try Reliability.run(
            DaemonProcess.binary("segued"),
            ["--data-dir", data, "--command", "tcp://127.0.0.1:*", "--publish", "tcp://127.0.0.1:*"])
        #expect(start.status == 1, "\(start.output)")
        #expect(
            start.output.contains("<2>segued: Could not open the log in \(data): database disk image is malformed. ")
                && start.output.contains(advice), "\(start.output)")
    }

    @Test(arguments: cases) func aStartThatFailsSaysWhyInOneRecord(_ c: Case) throws {
        let dir = DaemonProcess.temporaryDirectory()
        var arguments = c.arguments + ["--data-dir", dir + "/data"]
        if let config = c.config {
            let path = dir + "/segued.json"
            try config.write(toFile: path, atomically: true, encoding: .utf8)
            arguments += ["--config", path]
        }
        let result = try Reliability.run(DaemonProcess.binary("segued"), arguments)
        #expect(result.status == c.status, "\(result.output)")
        // FILE: the config file's path, which the message names.
        #expect(
            result.output.hasPrefix(c.output.replacingOccurrences(of: "FILE", with: dir + "/segued.json")),
            "\(result.output)")
        #expect(!result.output.contains("\n\n"), "a blank line: \(result.output.debugDescription)")
        #expect(result.output.hasSuffix("\n"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/data"), "a refused start left a data dir")
    }
}
