import Foundation
import Synchronization

/// Several "hosts" on one machine: network namespaces the test creates (`ip netns add`), each with
/// one veth pair to a bridge that lives in a namespace of its own, on a private subnet that exists
/// only inside those namespaces. The machine's own namespace gets no interface, address or route.
///
/// Processes run on a host through `ip netns exec` (which execs in place, so the pid is the
/// program's); test code runs on a host in a thread joined to its namespace (``Host/thread(_:)``).
/// ``tearDown()`` kills every process started here and deletes every namespace; it also runs at
/// exit, so a failing or interrupted test leaves nothing behind.
final class NetworkHosts: @unchecked Sendable {
    struct Host: Sendable {
        let name: String
        let namespace: String
        let address: String
        /// The bridge's end of the host's veth pair, in the switch namespace.
        let port: String
    }

    static let subnet = "10.77.0"
    let switchNamespace: String
    private(set) var hosts: [String: Host] = [:]
    private let processes = Mutex<[Process]>([])
    private let torn = Atomic<Bool>(false)

    /// Why namespaces cannot be used on this machine, or nil (root, iproute2, a kernel that allows them).
    static let unavailable: String? = {
        let name = "sgprobe\(getpid())"
        defer { _ = try? ip(["netns", "del", name]) }
        do {
            try ip(["netns", "add", name])
            try ip(["-n", name, "link", "add", "p0", "type", "veth", "peer", "name", "p1"])
            return nil
        } catch {
            return "ip netns is not usable here: \(error)"
        }
    }()

    /// Under CI a missing capability fails the test instead of skipping it.
    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"

    init(hosts names: [String]) throws {
        let prefix = "sg" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        switchNamespace = prefix + "-switch"
        NetworkHostsRegistry.add(self)
        do {
            try Self.ip(["netns", "add", switchNamespace])
            try Self.ip(["-n", switchNamespace, "link", "add", "br0", "type", "bridge"])
            try Self.ip(["-n", switchNamespace, "link", "set", "br0", "up"])
            for (index, name) in names.enumerated() {
                let host = Host(
                    name: name, namespace: prefix + "-" + name, address: "\(Self.subnet).\(index + 1)",
                    port: "v\(index)")
                try Self.ip(["netns", "add", host.namespace])
                hosts[name] = host
                try Self.ip(["-n", host.namespace, "link", "set", "lo", "up"])
                try Self.ip([
                    "-n", switchNamespace, "link", "add", host.port, "type", "veth", "peer", "name", "eth0", "netns",
                    host.namespace,
                ])
                try Self.ip(["-n", switchNamespace, "link", "set", host.port, "master", "br0", "up"])
                try Self.ip(["-n", host.namespace, "addr", "add", host.address + "/24", "dev", "eth0"])
                try Self.ip(["-n", host.namespace, "link", "set", "eth0", "up"])
            }
        } catch {
            tearDown()
            throw error
        }
    }

    subscript(_ name: String) -> Host { hosts[name]! }

    /// Starts `binary arguments` on `host`, its stdout and stderr appended to `log`.
    func start(_ binary: String, _ arguments: [String], on host: String, log: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = ["netns", "exec", self[host].namespace, binary] + arguments
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = FileHandle(forWritingAtPath: log)!
        handle.seekToEndOfFile()
        process.standardOutput = handle
        process.standardError = handle
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = nil
        process.environment = environment
        try process.run()
        processes.withLock { $0.append(process) }
        return process
    }

    /// Takes a host's link to the switch down (`ip link set … down`) or up again: cut off, or back.
    func setLink(_ host: String, up: Bool) throws {
        try Self.ip(["-n", switchNamespace, "link", "set", self[host].port, up ? "up" : "down"])
    }

    /// Kills every process started here (SIGTERM, then SIGKILL after 5 s) and deletes every
    /// namespace. Idempotent.
    func tearDown() {
        guard !torn.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let started = processes.withLock { $0 }
        for process in started where process.isRunning { kill(process.processIdentifier, SIGTERM) }
        let deadline = ContinuousClock.now + .seconds(5)
        for process in started {
            while process.isRunning, ContinuousClock.now < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        for host in hosts.values { _ = try? Self.ip(["netns", "del", host.namespace]) }
        _ = try? Self.ip(["netns", "del", switchNamespace])
    }

    /// The namespaces this set made that still exist (after ``tearDown()``: none).
    var remainingNamespaces: [String] {
        let listed = (try? Self.ip(["netns", "list"])) ?? ""
        let ours = Set(hosts.values.map(\.namespace) + [switchNamespace])
        return listed.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
            .filter { ours.contains($0) }
    }

    /// Runs `ip arguments`; its stdout, or an error with its stderr.
    @discardableResult
    static func ip(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure("ip \(arguments.joined(separator: " ")): \(String(decoding: errors, as: UTF8.self))")
        }
        return String(decoding: output, as: UTF8.self)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

extension NetworkHosts.Host {
    /// Runs `body` on a new thread that joined this host's network namespace: sockets it creates (and
    /// the libzmq I/O threads of contexts it creates) live on this host. Returns the thread's handle.
    func thread<T>(_ body: @escaping () throws -> T) -> HostThread<T> {
        HostThread(namespace: namespace, body)
    }
}

/// A thread in a host's network namespace, and what its body returned or threw.
final class HostThread<T>: @unchecked Sendable {
    // @unchecked: `result` is written by the thread before `done` is signalled, read after.
    private var result: Result<T, any Error>?
    private let done = DispatchSemaphore(value: 0)

    init(namespace: String, _ body: @escaping () throws -> T) {
        nonisolated(unsafe) let body = body
        Thread { [self] in
            result = Result {
                let fd = open("/run/netns/\(namespace)", O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { throw NetworkHosts.Failure("cannot open the namespace \(namespace)") }
                defer { close(fd) }
                guard HostThread.setNetworkNamespace(fd) == 0 else {
                    throw NetworkHosts.Failure("setns into \(namespace) failed: errno \(errno)")
                }
                return try body()
            }
            done.signal()
        }.start()
    }

    /// `setns(fd, CLONE_NEWNET)`, which Swift's Glibc module does not declare (it is a GNU extension).
    static func setNetworkNamespace(_ fd: Int32) -> Int32 {
        typealias SetNS = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(nil, "setns") else { return -1 }
        let cloneNewNet: Int32 = 0x4000_0000
        return unsafeBitCast(symbol, to: SetNS.self)(fd, cloneNewNet)
    }

    /// Waits for the body (at most `timeout`), then returns its result or rethrows its error.
    func value(timeout: Duration = .seconds(60)) throws -> T {
        guard done.wait(timeout: .now() + .milliseconds(Int(timeout.components.seconds * 1000))) == .success else {
            throw WaitTimeout(what: "a thread in a test namespace to finish")
        }
        return try result!.get()
    }
}

/// Every host set made in this process, torn down at exit whatever happened to the test.
enum NetworkHostsRegistry {
    private static let sets = Mutex<[NetworkHosts]>([])
    private static let atExit: Void = { atexit { NetworkHostsRegistry.tearDownAll() } }()

    static func add(_ hosts: NetworkHosts) {
        _ = atExit
        sets.withLock { $0.append(hosts) }
    }

    static func tearDownAll() {
        for hosts in sets.withLock({ $0 }) { hosts.tearDown() }
    }
}
