import Foundation
import SegueCore
import SegueWire

/// A real `segued` (the release binary beside this one) on free loopback ports and its own data dir.
final class DaemonProcess {
    let process = Process()
    let dataDirectory: String
    let commandEndpoint: String
    let publishEndpoint: String
    /// The frames socket's endpoint (`--publish-frames`), when the daemon was started with one.
    let framesEndpoint: String?
    let logPath: String
    /// Monotonic ns at spawn.
    private(set) var spawnedAt: Int64 = 0

    var pid: Int32 { process.processIdentifier }

    /// The daemon binary: `segued` in the directory of `/proc/self/exe` (SwiftPM puts every product
    /// of one build there).
    static func binary() throws -> String { try sibling("segued") }

    /// The product `name` of the same build as this program (`segued`, or `segue` for the relay
    /// section's `segue relay`).
    static func sibling(_ name: String) throws -> String {
        let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let path = (exe as NSString).deletingLastPathComponent + "/" + name
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw BenchError(
                "No \(name) next to segue-bench at \(path); build it with `swift build -c release --static-swift-stdlib` "
                    + "(or copy it beside segue-bench with the other products of the same build).")
        }
        return path
    }

    /// A free TCP port on 127.0.0.1 (bound and released; the daemon binds it right after).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket() failed: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa -> Int32 in
                guard bind(fd, sa, length) == 0 else { return -1 }
                return getsockname(fd, sa, &length)
            }
        }
        guard bound == 0 else { throw BenchError("bind() failed: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Spawns the daemon; `transport` is `tcp` or `ipc`. Does not wait: see ``waitReady``.
    init(
        dataDirectory: String, transport: String = "tcp", frameRate: Int = 60, durability: String = "full",
        frames: Bool = false, arguments: [String] = []
    ) throws {
        self.dataDirectory = dataDirectory
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        if transport == "ipc" {
            commandEndpoint = "ipc://\(dataDirectory)/command.sock"
            publishEndpoint = "ipc://\(dataDirectory)/publish.sock"
        } else {
            commandEndpoint = "tcp://127.0.0.1:\(try Self.freePort())"
            publishEndpoint = "tcp://127.0.0.1:\(try Self.freePort())"
        }
        framesEndpoint = frames ? "tcp://127.0.0.1:\(try Self.freePort())" : nil
        logPath = dataDirectory + ".log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: try Self.binary())
        process.arguments =
            [
                "--data-dir", dataDirectory, "--command", commandEndpoint, "--publish", publishEndpoint,
                "--frame-rate", String(frameRate), "--durability", durability,
            ] + (framesEndpoint.map { ["--publish-frames", $0] } ?? []) + arguments
        process.standardError = FileHandle(forWritingAtPath: logPath)
        process.standardOutput = FileHandle.nullDevice
        spawnedAt = Bench.monotonic()
        try process.run()
    }

    /// Waits for the first `ping` reply; returns seconds since spawn.
    @discardableResult
    func waitReady(context: ZMQContext, timeout: Double = 120) throws -> Double {
        let deadline = Bench.monotonic() + Int64(timeout * 1e9)
        // libzmq retries a refused connect only every 100 ms; a plain connect() probe every 2 ms finds
        // the bound port sooner, so start-up is timed to the millisecond, not to libzmq's retry.
        if let port = commandEndpoint.split(separator: ":").last.flatMap({ Int($0) }), commandEndpoint.hasPrefix("tcp")
        {
            while !Self.accepts(port: port) {
                guard process.isRunning else { throw BenchError("segued exited during start-up; see \(logPath).") }
                guard Bench.monotonic() < deadline else { throw BenchError("segued never listened; see \(logPath).") }
                Bench.sleep(seconds: 0.002)
            }
        }
        let client = try BenchClient(context: context, endpoint: commandEndpoint)
        while Bench.monotonic() < deadline {
            guard process.isRunning else { throw BenchError("segued exited during start-up; see \(logPath).") }
            if let reply = try client.request(Array(#"{"cmd":"ping"}"#.utf8), timeout: .milliseconds(20)),
                reply.starts(with: Array(#"{"ok":true"#.utf8))
            {
                return Double(Bench.monotonic() - spawnedAt) / 1e9
            }
        }
        throw BenchError("segued did not answer ping within \(Int(timeout)) s; see \(logPath).")
    }

    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// SIGTERM (graceful), then SIGKILL after 20 s.
    func stop() {
        guard process.isRunning else { return }
        kill(pid, SIGTERM)
        let deadline = Bench.monotonic() + 20_000_000_000
        while process.isRunning, Bench.monotonic() < deadline { Bench.sleep(seconds: 0.01) }
        if process.isRunning { kill(pid, SIGKILL) }
        process.waitUntilExit()
    }

    /// User + system CPU seconds the daemon has used.
    func cpuSeconds() -> Double { ProcessCPU.seconds(pid: pid) }

    /// Resident set size in KiB (`VmRSS` in `/proc/PID/status`).
    func residentKiB() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Double(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
        }
        return 0
    }

    /// The daemon's log (stderr), for its own start-up figures.
    func logText() -> String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
}
