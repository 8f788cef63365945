import Foundation
import SegueCore
import SegueWire

/// Helpers for the reliability and security suites: programs, the daemon's memory and descriptors,
/// faults on its data dir, and CURVE clients.
enum Reliability {
    /// The repository root, found from this file, for `scripts/`.
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../..").standardized

    /// Runs a program to its end; returns its status and its stdout and stderr together.
    @discardableResult
    static func run(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws
        -> (status: Int32, output: String)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    /// The daemon's resident memory (`VmRSS` in /proc), in KiB.
    static func residentKiB(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        return line.flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true)[1]) }
    }

    /// How many file descriptors the process holds.
    static func openDescriptors(_ pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }

    /// Every durable event after `after`, paging through `history`.
    static func history(_ client: TestClient, after: Int64 = 0) throws -> [JSON] {
        var events: [JSON] = []
        var after = after
        while true {
            let page = try client.call(["cmd": "history", "after": .int(after), "limit": 10_000])
            guard page["ok"] == true, case .array(let items)? = page["events"] else {
                throw Failure("history: \(page)")
            }
            events += items
            after = page["next"]?.int64Value ?? after
            if page["more"] != true { return events }
        }
    }

    /// The request ids (`command`) of the events in the log.
    static func commandIDs(_ client: TestClient) throws -> Set<String> {
        Set(try history(client).compactMap { $0["command"]?.stringValue })
    }

    /// Writes a daemon config file into `directory` and returns its path.
    static func writeConfig(_ json: JSON, in directory: String) throws -> String {
        let path = directory + "/segued-test.json"
        try Data(json.serializedBytes()).write(to: URL(fileURLWithPath: path))
        return path
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

/// A tmpfs of a fixed size mounted on a fresh directory: the daemon's data dir for disk-full tests.
/// Unmounted (lazily, so a straggling descriptor cannot keep it) when the test ends.
final class TmpfsMount {
    let path: String
    var fillerPath: String { path + "/filler" }

    init(sizeKiB: Int) throws {
        path = DaemonProcess.temporaryDirectory()
        let mount = try Reliability.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(sizeKiB)k", "tmpfs", path])
        guard mount.status == 0 else { throw Reliability.Failure("mount tmpfs on \(path): \(mount.output)") }
    }

    /// Fills the file system until writes fail with ENOSPC; returns the bytes written.
    @discardableResult
    func fill() -> Int {
        let fd = open(fillerPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0x5A, count: 4096)
        var total = 0
        while true {
            let n = chunk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return total }
            total += n
        }
    }

    /// Deletes the filler: the fault clears.
    func clear() { unlink(fillerPath) }

    deinit {
        _ = try? Reliability.run("/bin/umount", ["-l", path])
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// A read-only fault on a running daemon: strace attaches to every thread and makes `pwrite64`,
/// `fsync` and `fdatasync` fail with EROFS, exactly what SQLite sees when its file system is
/// remounted read-only. (A real `mount -o remount,ro` is refused with EBUSY while the daemon holds
/// the database open for writing, so the fault is injected at the system call instead.)
final class ReadOnlyFault {
    let tracer = Process()
    let pid: Int32

    init(pid: Int32) throws {
        self.pid = pid
        tracer.executableURL = URL(fileURLWithPath: "/usr/bin/strace")
        tracer.arguments = [
            "-f", "-qq", "-I", "1", "-o", "/dev/null", "-e", "trace=pwrite64,fsync,fdatasync",
            "-e", "inject=pwrite64,fsync,fdatasync:error=EROFS", "-p", String(pid),
        ]
        try tracer.run()
        // Attached once every thread shows a tracer.
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            if tracedThreads() == threads(), threads() > 0 { return }
            usleep(20_000)
        }
        throw Reliability.Failure("strace did not attach to segued \(pid)")
    }

    private func threads() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count) ?? 0
    }

    private func tracedThreads() -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.filter { task in
            let status = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)) ?? ""
            return status.split(separator: "\n").contains { $0.hasPrefix("TracerPid:") && !$0.hasSuffix("\t0") }
        }.count
    }

    /// Detaches: the file system is writable again.
    func clear() {
        guard tracer.isRunning else { return }
        // SIGINT detaches; if strace is stuck, SIGKILL detaches too (the kernel releases tracees
        // that were attached rather than started).
        tracer.interrupt()
        let deadline = ContinuousClock.now + .seconds(2)
        while tracer.isRunning, ContinuousClock.now < deadline { usleep(10_000) }
        if tracer.isRunning { kill(tracer.processIdentifier, SIGKILL) }
        tracer.waitUntilExit()
    }

    deinit { clear() }
}

/// A DEALER or SUB socket that speaks CURVE with the daemon, as a configured client would.
final class CurvePeer {
    let context: ZMQContext
    let socket: ZMQSocket

    init(
        endpoint: String, kind: ZMQSocket.Kind, serverPublicKey: String, keys: (public: String, secret: String),
        topics: [String] = []
    ) throws {
        context = try ZMQContext()
        socket = try ZMQSocket(context, kind)
        try socket.setLinger(.zero)
        try socket.setCurveServerKey(serverPublicKey)
        try socket.setCurvePublicKey(keys.public)
        try socket.setCurveSecretKey(keys.secret)
        for topic in topics { try socket.subscribe(topic) }
        try socket.connect(endpoint)
    }

    deinit {
        socket.close()
        context.terminate()
    }

    /// The reply, or `nil` when none comes within `timeout` (a refused peer never gets one).
    func call(_ request: JSON, timeout: Duration = .seconds(5)) throws -> JSON? {
        try socket.send(request.serializedBytes())
        try socket.setReceiveTimeout(timeout)
        guard let frames = try socket.receiveMultipart() else { return nil }
        return try JSON.parse(frames.last!)
    }

    /// The next published message's topic, or `nil` after `timeout`.
    func nextTopic(timeout: Duration) throws -> String? {
        try socket.setReceiveTimeout(timeout)
        guard let frames = try socket.receiveMultipart() else { return nil }
        return String(decoding: frames[0], as: UTF8.self)
    }
}
