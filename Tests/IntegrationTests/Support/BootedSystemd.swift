import Foundation
import Glibc
import PostgresTestSupport

/// A real systemd booted as PID 1 in fresh namespaces by scripts/systemd-boot.sh, on an overlay of `/`
/// with a `make install-built DESTDIR=` stage of this build copied in: the unit as `make install`
/// installs it, run by the systemd of this machine. `down()` (also at deinit) powers it off, else
/// kills it, and removes its sub-cgroups.
final class BootedSystemd: @unchecked Sendable {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let script = repositoryRoot + "/scripts/systemd-boot.sh"

    /// Why this machine cannot boot one, or nil when it can: the script's probe (root, namespaces, an
    /// overlay of `/`, cgroup2, the tools), then what the checks need besides.
    static let unavailable: String? = {
        guard let probe = try? ChildProcess.run([script, "probe"], timeout: .seconds(20)) else {
            return "scripts/systemd-boot.sh probe could not run"
        }
        guard probe.status == 0 else {
            return "this machine cannot boot a systemd in namespaces: \(probe.output.trimmed)"
        }
        for (tool, package) in [("make", "make"), ("python3", "python3")] {
            guard (try? ChildProcess.run(["/bin/sh", "-c", "command -v \(tool)"]))?.status == 0 else {
                return "needs \(tool) (apt-get install \(package))"
            }
        }
        guard (try? ChildProcess.run(["python3", "-c", "import zmq"]))?.status == 0 else {
            return "needs pyzmq (python3 -m pip install pyzmq)"
        }
        return nil
    }()

    let work: String
    let stage: String
    /// The new PID 1, as the host numbers it.
    private(set) var pid: pid_t = 0
    /// Seconds from `up` to systemctl being able to talk to it.
    private(set) var bootSeconds = 0.0
    private var isUp = false

    /// Stages the install of this build's `segued` and `segue`, then boots.
    init() throws {
        work = DaemonProcess.temporaryDirectory()
        stage = work + "/stage"
        let install = try ChildProcess.run(
            [
                "make", "-s", "-C", Self.repositoryRoot, "install-built",
                "BUILT=\(DaemonProcess.productsDirectory.path)", "DESTDIR=\(stage)",
            ], timeout: .seconds(120))
        guard install.status == 0 else { throw Failure("make install-built failed:\n\(install.output)") }
        let state = work + "/boot"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let started = ContinuousClock.now
        let up = try ChildProcess.run(
            ["SEGUE_BOOT_OWNER=\(getpid())", Self.script, "up", stage, state], timeout: .seconds(45))
        isUp = true
        guard up.status == 0, let pid = pid_t(up.stdout.trimmed) else {
            down()
            throw Failure("systemd did not boot (status \(up.status)):\n\(up.output)")
        }
        self.pid = pid
        let elapsed = ContinuousClock.now - started
        bootSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// Runs `arguments` inside: every namespace of the PID 1, its root and working directory.
    @discardableResult
    func run(_ arguments: [String], timeout: Duration = .seconds(30)) throws -> ChildProcess.Result {
        try ChildProcess.run([Self.script, "run", work + "/boot"] + arguments, timeout: timeout)
    }

    /// `sh -c script` inside.
    @discardableResult
    func shell(_ script: String, timeout: Duration = .seconds(30)) throws -> ChildProcess.Result {
        try run(["/bin/sh", "-c", script], timeout: timeout)
    }

    /// `systemctl show segued -p NAME --value`, trimmed.
    func property(_ name: String, unit: String = "segued") throws -> String {
        try run(["systemctl", "show", unit, "-p", name, "--value"]).stdout.trimmed
    }

    /// The service's journal (`journalctl -u segued`, also systemd's own lines about it).
    func journal(unit: String = "segued") throws -> String {
        try run(["journalctl", "-u", unit, "--no-pager", "-o", "cat"]).stdout
    }

    /// Whether the service's journal holds `text` (a Bool, so that a failed expectation does not
    /// print the whole journal).
    func journalContains(_ text: String, unit: String = "segued") throws -> Bool {
        try journal(unit: unit).contains(text)
    }

    /// Polls `condition` every 100 ms until it holds or `timeout` passes; returns whether it held.
    func wait(for timeout: Duration, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try condition() { return true }
            usleep(100_000)
        }
        return try condition()
    }

    /// Poweroff, else SIGKILL of the PID 1; the sub-cgroups removed. Idempotent.
    func down() {
        guard isUp else { return }
        isUp = false
        if let result = try? ChildProcess.run([Self.script, "down", work + "/boot"], timeout: .seconds(30)),
            result.status != 0
        {
            print("systemd-boot.sh down: \(result.output)")
        }
    }

    deinit { down() }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

/// A child process with a time limit, its output collected through files. Spawned and reaped here
/// (posix_spawn, waitpid) rather than by Foundation's `Process`, which waits until every process that
/// inherited its internal descriptor has exited: `systemd-boot.sh up` leaves the booted systemd behind.
enum ChildProcess {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        /// Killed at the time limit (`status` is then -1).
        var timedOut = false
        var output: String { stdout + stderr }
    }

    static func run(_ arguments: [String], timeout: Duration = .seconds(30)) throws -> Result {
        let directory = NSTemporaryDirectory() + "segue-command-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outPath = directory + "/out"
        let errPath = directory + "/err"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        SpawnActions.closeInherited(&actions)
        let argv = (["/usr/bin/env"] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/usr/bin/env", &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw BootedSystemd.Failure("posix_spawn \(arguments): \(String(cString: strerror(spawned)))")
        }
        let deadline = ContinuousClock.now + timeout
        var status: Int32 = 0
        var timedOut = false
        while waitpid(pid, &status, WNOHANG) == 0 {
            if ContinuousClock.now >= deadline, !timedOut {
                timedOut = true
                kill(pid, SIGKILL)
            }
            usleep(10_000)
        }
        let read = { (path: String) in (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        var stderr = read(errPath)
        if timedOut { stderr += "\n(killed after \(timeout): \(arguments.joined(separator: " ")))" }
        // WIFEXITED: the low 7 bits are 0; then the status is in the next 8.
        let exited = status & 0x7f == 0
        return Result(
            status: timedOut || !exited ? -1 : (status >> 8) & 0xff, stdout: read(outPath), stderr: stderr,
            timedOut: timedOut)
    }
}

extension String {
    var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
