import Foundation
import SegueCore
import SegueWire
import Synchronization

/// A real `segued` started for a test: a temp data dir, free tcp ports (or ipc paths), and a stop.
///
/// The binary is the one `swift build` put next to the test bundle, so the suite tests exactly what
/// ships. Output goes to `log` in the data dir, which failing tests print.
final class DaemonProcess: @unchecked Sendable {
    let dataDir: String
    let commandEndpoint: String
    let publishEndpoint: String
    let process = Process()
    let logPath: String
    /// The store arguments (`--store-url …`), kept by a restart; empty for SQLite in the data dir.
    let storeArguments: [String]
    private(set) var exitStatus: Int32?

    /// The log as `segue` takes it (`--data-dir`, `replay`'s argument): the PostgreSQL URL of a
    /// daemon on PostgreSQL, else the data dir.
    var logLocation: String { storeArguments.last ?? dataDir }

    /// The directory holding the built products (`segued`, `segue`, ...).
    static var productsDirectory: URL {
        // Another build's binaries (an older commit's, to see a new test fail on it).
        if let other = ProcessInfo.processInfo.environment["SEGUE_TEST_BINARIES"], !other.isEmpty {
            return URL(fileURLWithPath: other)
        }
        let exe = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var dir = exe.deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("segued").path), dir.path != "/" {
            dir = dir.deletingLastPathComponent()
        }
        return dir
    }

    static func binary(_ name: String) -> String { productsDirectory.appendingPathComponent(name).path }

    /// Starts a daemon and waits until it answers `ping`. Its output goes to `logPath`, by default
    /// `segued.log` in the data dir (a test that fills the data dir's disk puts it elsewhere).
    init(
        dataDir: String? = nil, store: StoreBackend = .selected, transport: Transport = .tcp, frameRate: Int? = 60,
        arguments: [String] = [], environment: [String: String] = [:], waitReady: Bool = true, logPath: String? = nil
    ) throws {
        self.dataDir = dataDir ?? Self.temporaryDirectory()
        storeArguments = try store.newLog()
        switch transport {
        case .tcp:
            let ports = Self.freePorts(2)
            commandEndpoint = "tcp://127.0.0.1:\(ports[0])"
            publishEndpoint = "tcp://127.0.0.1:\(ports[1])"
        case .ipc:
            commandEndpoint = "ipc://\(self.dataDir)/run/command.sock"
            publishEndpoint = "ipc://\(self.dataDir)/run/publish.sock"
        }
        self.logPath = logPath ?? self.dataDir + "/segued.log"
        try start(frameRate: frameRate, arguments: arguments, environment: environment, waitReady: waitReady)
    }

    enum Transport { case tcp, ipc }

    /// `launcher`: a program that execs segued in its own process (its arguments, then segued's
    /// path and arguments follow), e.g. `execShell`.
    /// `frameRate`: nil starts segued without `--frame-rate` (its config file or default decides).
    private func start(
        frameRate: Int?, arguments: [String], environment: [String: String], launcher: [String] = [],
        waitReady: Bool
    ) throws {
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = FileHandle(forWritingAtPath: logPath)!
        log.seekToEndOfFile()
        process.executableURL = URL(fileURLWithPath: launcher.first ?? Self.binary("segued"))
        let rate: [String] = frameRate.map { ["--frame-rate", "\($0)"] } ?? []
        let daemonArguments: [String] =
            ["--data-dir", dataDir, "--command", commandEndpoint, "--publish", publishEndpoint] + rate
            + storeArguments + arguments
        process.arguments =
            Array(launcher.dropFirst()) + (launcher.isEmpty ? [] : [Self.binary("segued")]) + daemonArguments
        var env = ProcessInfo.processInfo.environment
        env["NOTIFY_SOCKET"] = nil
        env["WATCHDOG_USEC"] = nil
        for (k, v) in environment { env[k] = v }
        process.environment = env
        process.standardError = log
        process.standardOutput = log
        try process.run()
        ChildReaper.watch(process.processIdentifier)
        if waitReady { try waitUntilReady() }
    }

    /// Polls `ping` until the daemon answers (it binds only once the store is open).
    func waitUntilReady(timeout: Duration = .seconds(20)) throws {
        let client = try TestClient(endpoint: commandEndpoint)
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard process.isRunning else { throw DaemonError.exited(log) }
            if let reply = try? client.call(["cmd": "ping"], timeout: .milliseconds(200)), reply["ok"] == true {
                return
            }
        }
        throw DaemonError.notReady(log)
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    /// Sends `signal` and waits for the exit; returns the exit status (or 128+signal).
    @discardableResult
    func stop(signal: Int32 = SIGTERM, timeout: Duration = .seconds(10)) -> Int32 {
        if process.isRunning { kill(process.processIdentifier, signal) }
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline { usleep(2_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        ChildReaper.forget(process.processIdentifier)
        let status =
            process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        exitStatus = status
        return status
    }

    /// A daemon started with `--config` on a file holding `config` (JSON), e.g. a heartbeat interval.
    static func configured(_ config: String) throws -> DaemonProcess {
        try DaemonProcess(arguments: configFile(config))
    }

    /// `--config` and a new file holding `config` (JSON): the arguments of a daemon, and of its restart.
    static func configFile(_ config: String) throws -> [String] {
        let path = temporaryDirectory() + "/segued.json"
        try config.write(toFile: path, atomically: true, encoding: .utf8)
        return ["--config", path]
    }

    /// The log's files (`segue.db` and its WAL), for a restore test's "backup": copied into a new
    /// temp dir, whose path is returned. Take it while the daemon is stopped.
    func copyOfLog() throws -> String {
        let backup = Self.temporaryDirectory()
        for file in ["segue.db", "segue.db-wal"] {
            try FileManager.default.copyItem(atPath: dataDir + "/" + file, toPath: backup + "/" + file)
        }
        return backup
    }

    /// Replaces the log with a `copyOfLog` (a restore from a backup); the daemon must be stopped.
    func restoreLog(from backup: String) throws {
        for file in ["segue.db", "segue.db-wal", "segue.db-shm"] {
            try? FileManager.default.removeItem(atPath: dataDir + "/" + file)
        }
        for file in ["segue.db", "segue.db-wal"] {
            try FileManager.default.copyItem(atPath: backup + "/" + file, toPath: dataDir + "/" + file)
        }
    }

    /// A fresh daemon on the same data dir and endpoints (a restart).
    func restarted(
        arguments: [String] = [], environment: [String: String] = [:], launcher: [String] = [], frameRate: Int = 60,
        waitReady: Bool = true
    ) throws -> DaemonProcess {
        if process.isRunning { stop() }
        return try DaemonProcess(
            reusing: self, arguments: arguments, environment: environment, launcher: launcher, frameRate: frameRate,
            waitReady: waitReady)
    }

    /// A shell that execs the program after it, so the process (and its pid) becomes the program's.
    static let execShell = ["/bin/sh", "-c", #"exec "$0" "$@""#]

    private init(
        reusing other: DaemonProcess, arguments: [String], environment: [String: String], launcher: [String],
        frameRate: Int, waitReady: Bool
    ) throws {
        dataDir = other.dataDir
        commandEndpoint = other.commandEndpoint
        publishEndpoint = other.publishEndpoint
        logPath = other.logPath
        storeArguments = other.storeArguments
        try start(
            frameRate: frameRate, arguments: arguments, environment: environment, launcher: launcher,
            waitReady: waitReady)
    }

    /// Waits for a daemon expected to stop by itself (a refused start) and returns its exit status,
    /// nil if it still runs after `timeout`.
    func exitStatus(within timeout: Duration) -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline { usleep(20_000) }
        return process.isRunning ? nil : stop()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        ChildReaper.forget(process.processIdentifier)
    }

    enum DaemonError: Error, CustomStringConvertible {
        case exited(String)
        case notReady(String)
        var description: String {
            switch self {
            case .exited(let log): "segued exited during start-up:\n\(log)"
            case .notReady(let log): "segued did not answer ping in time:\n\(log)"
            }
        }
    }

    /// A new directory under the system temp dir, removed when the test process exits (a data dir
    /// holds a WAL of about 18 MB: a run leaves gigabytes otherwise). `SEGUE_KEEP_TEST_DIRS=1` keeps
    /// them for a look after a failure; failing tests print the daemon's log either way.
    static func temporaryDirectory() -> String {
        let path = NSTemporaryDirectory() + "segue-test-" + UUID().uuidString.prefix(8)
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        TestDirectories.register(path)
        return path
    }

    /// `count` different free ports: the kernel may hand out a port it just released again.
    static func freePorts(_ count: Int) -> [Int] {
        var ports: [Int] = []
        while ports.count < count {
            let port = freePort()
            if !ports.contains(port) { ports.append(port) }
        }
        return ports
    }

    /// A tcp port on 127.0.0.1 that nothing holds, for a daemon (or a test) to bind right after.
    ///
    /// Drawn below the kernel's ephemeral range (`ip_local_port_range`), not from it: a port the
    /// kernel hands out for `bind(0)` is the kind it also hands to the outgoing connections of the
    /// tests' many clients, so one could take it before the daemon binds it. Each port is handed out
    /// once per test process, from a random start (other test runs on the machine), and only if a
    /// bind to it succeeds now.
    static func freePort() -> Int {
        PortPool.shared.next() ?? kernelPort()
    }

    /// A port from `bind(0)`: the fallback when the range below the ephemeral one is used up.
    static func kernelPort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = loopback(port: 0)
        _ = bind(fd, &addr)
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    /// Whether a tcp socket can bind 127.0.0.1:`port` now.
    static func isBindable(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = loopback(port: port)
        return bind(fd, &addr) == 0
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = UInt16(port).bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        return addr
    }

    private static func bind(_ fd: Int32, _ addr: inout sockaddr_in) -> Int32 {
        withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }
}

/// The ports `DaemonProcess.freePort` hands out: 10000 up to the kernel's ephemeral range, each once.
final class PortPool: Sendable {
    static let shared = PortPool(ephemeralStart: PortPool.ephemeralStart())

    private let range: Range<Int>
    private let cursor = Mutex<Int>(0)

    init(ephemeralStart: Int) {
        range = 10_000..<max(10_000, ephemeralStart)
        cursor.withLock { $0 = range.isEmpty ? 0 : Int.random(in: range) }
    }

    /// The next bindable port, wrapping around once; nil when none is left.
    func next() -> Int? {
        cursor.withLock { cursor in
            for _ in 0..<range.count {
                let port = cursor
                cursor = cursor + 1 == range.upperBound ? range.lowerBound : cursor + 1
                if DaemonProcess.isBindable(port) { return port }
            }
            return nil
        }
    }

    /// The first port of `ip_local_port_range` (32768 on Linux by default).
    static func ephemeralStart() -> Int {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        return text.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32_768
    }
}

enum TestDirectories {
    private static let paths = Mutex<[String]>([])
    private static let removeAtExit: Void = {
        atexit { TestDirectories.removeAll() }
    }()

    static func register(_ path: String) {
        _ = removeAtExit
        paths.withLock { $0.append(path) }
    }

    static func removeAll() {
        guard ProcessInfo.processInfo.environment["SEGUE_KEEP_TEST_DIRS"] != "1" else { return }
        for path in paths.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
    }
}
