import Foundation
import SegueCore
import Testing

/// A `segue.db` its user may not write (what a restore copied as root leaves): SQLite opens such a
/// file read-only without an error, so segued would report ready and then fail every command.
/// It must refuse to start and say which file and user; once the file is given to the user, it
/// starts. Runs segued as `nobody`, so it needs root (CI runs as root).
@Suite(.ownThreads, .enabled(if: getuid() == 0, Comment(rawValue: "needs root to run segued as another user")))
struct DataDirPermissionTests {
    @Test(.sqliteOnly) func aStoreTheUserCannotWriteIsRefusedAtStart() throws {
        let first = try DaemonProcess()
        let client = try TestClient(endpoint: first.commandEndpoint)
        #expect(try client.call(["cmd": "create", "navigator": "main", "root": "Home"])["ok"] == true)
        #expect(first.stop() == 0)
        let dir = first.dataDir
        // The data dir and everything in it belong to nobody, but segue.db to root, mode 0644.
        _ = try Reliability.run("/bin/chown", ["-R", "nobody:nogroup", dir])
        _ = try Reliability.run("/bin/chown", ["root:root", dir + "/segue.db"])
        _ = try Reliability.run("/bin/chmod", ["0644", dir + "/segue.db"])

        // `--check-config` run as the service user says so too, where it used to pass.
        let check = try Self.checkConfigAsNobody(dir: dir)
        #expect(check.status == 78, "\(check.output)")
        #expect(
            check.output.contains(
                "config error at --data-dir: the event store file \(dir)/segue.db cannot be written by this process "
                    + "(uid 65534)"), "\(check.output)")
        let parent = DaemonProcess.temporaryDirectory()
        let missing = try Self.checkConfigAsNobody(dir: parent + "/data")
        #expect(missing.status == 78, "\(missing.output)")
        #expect(
            missing.output.contains(
                "the data directory \(parent)/data cannot be created by this process (uid 65534): \(parent) is not "
                    + "writable"), "\(missing.output)")
        // The start says the same, where it said Foundation's "You don't have permission."
        let notMade = try Self.runAsNobody(dir: parent + "/data", timeout: .seconds(20))
        #expect(notMade.status == 1, "\(notMade.log)")
        #expect(
            notMade.log.contains(
                "The data directory \(parent)/data cannot be created by this process (uid 65534): \(parent) is not "
                    + "writable (Permission denied)"), "\(notMade.log)")

        let refused = try Self.runAsNobody(dir: dir, timeout: .seconds(20))
        #expect(refused.status == 1, "\(refused.log)")
        #expect(refused.log.contains("cannot be written by this process (uid 65534)"), "\(refused.log)")

        _ = try Reliability.run("/bin/chown", ["nobody:nogroup", dir + "/segue.db"])
        let passed = try Self.checkConfigAsNobody(dir: dir)
        #expect(passed.status == 0, "\(passed.output)")
        let started = try Self.runAsNobody(dir: dir, timeout: .seconds(2))
        #expect(started.status == nil, "segued stopped although its files are its own:\n\(started.log)")
    }

    /// `segued --check-config` as nobody on `dir`.
    static func checkConfigAsNobody(dir: String) throws -> (status: Int32, output: String) {
        try Reliability.run(
            "/usr/bin/setpriv",
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", "--", DaemonProcess.binary("segued"),
                "--check-config", "--data-dir", dir, "--command", "tcp://127.0.0.1:*", "--publish", "tcp://127.0.0.1:*",
            ])
    }

    /// Starts segued as nobody on `dir`; returns its exit status if it exits within `timeout` (nil if
    /// it is still running, and then stops it) and what it logged.
    static func runAsNobody(dir: String, timeout: Duration) throws -> (status: Int32?, log: String) {
        let process = Process()
        // setpriv execs segued itself (no parent left in between), so the interrupt below reaches it.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        let port = DaemonProcess.freePort()
        process.arguments = [
            "--reuid=65534", "--regid=65534", "--clear-groups", "--", DaemonProcess.binary("segued"), "--data-dir", dir,
            "--command", "tcp://127.0.0.1:\(port)", "--publish", "tcp://127.0.0.1:\(DaemonProcess.freePort())",
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = nil
        process.environment = environment
        let output = Pipe()
        process.standardError = output
        process.standardOutput = output
        try process.run()
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline { usleep(20_000) }
        var status: Int32?
        if process.isRunning {
            process.interrupt()
        } else {
            status = process.terminationStatus
        }
        process.waitUntilExit()
        let log = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (status, log)
    }
}
