import Foundation
import SegueCore
import SegueWire

/// Command round trips and throughput against a real daemon.
enum CommandBench {
    static func pushBody(_ navigator: String) -> [UInt8] {
        Array(#"{"cmd":"push","navigator":"\#(navigator)","screen":"Detail","animated":false}"#.utf8)
    }

    static func popBody(_ navigator: String) -> [UInt8] {
        Array(#"{"cmd":"pop","navigator":"\#(navigator)","animated":false}"#.utf8)
    }

    struct Latency {
        var push = Samples()
        var pop = Samples()
        /// Raw limits sampled in the same loop, between the commands (a shared disk drifts by 30× within
        /// minutes, so limits measured earlier in the run would not describe the same disk): the echo
        /// round trip, and the storage's own (`fdatasync`, or PostgreSQL's `INSERT; COMMIT`).
        var rtt = Samples()
        var fsync = Samples()
        /// The same commands back to back with nothing between them, and the echo round trip the same
        /// way right after: the tight-loop pair (caches and scheduler warm, as a client in a loop sees).
        var tightPush = Samples()
        var tightRTT = Samples()
        var errors = 0
        var firstError: String?
        /// What the daemon says it runs with (`stats.store.durability`).
        var durability = ""
        /// The engine thread's CPU per command in the interleaved rounds, where the engine sleeps
        /// between commands, and with `EngineCPU.window` commands in flight, where it does not.
        var waiting = EngineCPU()
        var busy = EngineCPU()
        /// The raw echo server's thread per echo in the same interleaved rounds: a loop of the same
        /// shape (poll, read until `EAGAIN`, send) woken as often, with nothing to do but echo.
        var echoWaiting = EngineCPU()
    }

    /// CPU seconds of segued's engine thread (its main thread, which runs the loop) per command, and
    /// the store's commits per command over the same commands.
    struct EngineCPU {
        /// Commands in flight from one DEALER for `Latency.busy`.
        static let window = 32
        var user = 0.0
        var system = 0.0
        var commits = 0.0

        /// Measures `body`, which sends `commands` commands.
        static func measure(_ daemon: DaemonProcess, _ client: BenchClient, commands: Int, _ body: () throws -> Void)
            throws -> EngineCPU
        {
            let commitsBefore = try client.stats().number("store", "commits")
            let before = ProcessCPU.thread(daemon.pid, of: daemon.pid)
            try body()
            let after = ProcessCPU.thread(daemon.pid, of: daemon.pid)
            let commits = try client.stats().number("store", "commits") - commitsBefore
            return EngineCPU(from: before, to: after, commands: commands, commits: commits)
        }

        /// A thread's CPU between two readings, per command.
        init(
            from before: (user: Double, system: Double), to after: (user: Double, system: Double), commands: Int,
            commits: Double = 0
        ) {
            let n = Double(max(1, commands))
            self.init(
                user: (after.user - before.user) / n, system: (after.system - before.system) / n, commits: commits / n)
        }

        init(user: Double = 0, system: Double = 0, commits: Double = 0) {
            self.user = user
            self.system = system
            self.commits = commits
        }

        /// "76 µs user + 35 µs system, 1.00 commits" per command.
        var summary: String {
            String(format: "%.1f µs user + %.1f µs system, %.2f commits", user * 1e6, system * 1e6, commits)
        }
    }

    /// The engine thread's CPU per command while the client waits for each reply (the latency rounds)
    /// against the same commands with `EngineCPU.window` in flight: how much of a command's cost is
    /// waking up and bringing caches back after a sleep rather than the work itself.
    static func engineFigure(section: String, label: String, _ result: Latency) -> Figure {
        let waiting = result.waiting
        let busy = result.busy
        return Figure(
            section: section, name: "engine CPU per command, \(label), client waiting",
            value: (waiting.user + waiting.system) * 1e6, unit: "µs",
            limit: (busy.user + busy.system) * 1e6,
            limitName: "the same commands, \(EngineCPU.window) in flight (no sleep between them)",
            detail: "per command, waiting: \(waiting.summary); \(EngineCPU.window) in flight: \(busy.summary); "
                + String(
                    format: "the raw echo server's thread per echo of the same rounds: %.1f µs user + %.1f µs system",
                    result.echoWaiting.user * 1e6, result.echoWaiting.system * 1e6))
    }

    /// Alternating non-animated push and pop on one navigator from one DEALER, `pairs` of each; every
    /// command is preceded by a raw echo round trip of the same bytes over the same transport and a
    /// raw `write` + `fdatasync` in the data dir's file system, or `storage` when given (its round
    /// number in, nanoseconds out). Then `pairs` more back to back, and as many echoes back to back.
    static func latency(
        daemon: DaemonProcess, context: ZMQContext, pairs: Int, echoEndpoint: String,
        storage: ((Int) throws -> Int64)? = nil
    ) throws -> Latency {
        let client = try BenchClient(context: context, endpoint: daemon.commandEndpoint)
        try client.call(["cmd": "create", "navigator": "lat", "root": "Home"])
        let server = try RawBaselines.EchoServer(endpoint: echoEndpoint)
        defer { server.shutdown() }
        let echo = try BenchClient(context: context, endpoint: echoEndpoint)
        let disk = try RawBaselines.SyncFile(path: daemon.dataDirectory + "/raw-fdatasync.bin")
        let push = pushBody("lat")
        let pop = popBody("lat")
        let okPrefix = Array(#"{"ok":true"#.utf8)
        var result = Latency()
        /// One interleaved round: per command an echo, a storage sample, then the command.
        func roundTrips(_ round: Int, measured: Bool) throws {
            for (index, body) in [push, pop].enumerated() {
                var start = Bench.monotonic()
                guard try echo.request(push, timeout: .seconds(5)) != nil else { throw BenchError("Echo timed out.") }
                let rtt = Bench.monotonic() - start
                let fsync = try storage?(round * 2 + index) ?? disk.sync(index: round * 2 + index)
                start = Bench.monotonic()
                guard let reply = try client.request(body, timeout: .seconds(30)) else {
                    throw BenchError("No reply to a push/pop within 30 s.")
                }
                let elapsed = Bench.monotonic() - start
                guard measured else { continue }  // warm-up
                if !reply.starts(with: okPrefix) {
                    result.errors += 1
                    if result.firstError == nil { result.firstError = String(decoding: reply, as: UTF8.self) }
                }
                result.rtt.add(nanoseconds: rtt)
                result.fsync.add(nanoseconds: fsync)
                if index == 0 { result.push.add(nanoseconds: elapsed) } else { result.pop.add(nanoseconds: elapsed) }
            }
        }
        for round in 0..<100 { try roundTrips(round, measured: false) }
        let echoBefore = server.threadCPU()
        result.waiting = try EngineCPU.measure(daemon, client, commands: pairs * 2) {
            for round in 100..<(pairs + 100) { try roundTrips(round, measured: true) }
        }
        result.echoWaiting = EngineCPU(from: echoBefore, to: server.threadCPU(), commands: pairs * 2)
        for round in 0..<pairs {
            for (index, body) in [push, pop].enumerated() {
                let start = Bench.monotonic()
                guard try client.request(body, timeout: .seconds(30)) != nil else {
                    throw BenchError("No reply to a push/pop within 30 s.")
                }
                if index == 0 && round >= pairs / 10 { result.tightPush.add(nanoseconds: Bench.monotonic() - start) }
            }
        }
        for round in 0..<pairs {
            let start = Bench.monotonic()
            guard try echo.request(push, timeout: .seconds(5)) != nil else { throw BenchError("Echo timed out.") }
            if round >= pairs / 10 { result.tightRTT.add(nanoseconds: Bench.monotonic() - start) }
        }
        let requests = (0..<pairs * 2).map { $0 % 2 == 0 ? push : pop }
        result.busy = try EngineCPU.measure(daemon, client, commands: requests.count) {
            let sent = try client.pipeline(requests, window: EngineCPU.window)
            if let error = sent.firstError { throw BenchError("Pipelined push/pop failed: \(error.prefix(200))") }
        }
        result.durability = try client.stats()["store"]?["durability"]?.stringValue ?? "?"
        return result
    }

    /// 16 closed-loop clients, each on its own two navigators: push, update, pop, update, … where the
    /// updates drive an interactive pop held open on the second navigator.
    static func throughput(daemon: DaemonProcess, context: ZMQContext, clients: Int, seconds: Double) throws
        -> ClosedLoop.Result
    {
        let setup = try BenchClient(context: context, endpoint: daemon.commandEndpoint)
        var updates: [[[UInt8]]] = []
        for index in 0..<clients {
            try setup.call(["cmd": "create", "navigator": .string("t\(index)"), "root": "Home"])
            try setup.call(["cmd": "create", "navigator": .string("g\(index)"), "root": "Home"])
            try setup.call(["cmd": "push", "navigator": .string("g\(index)"), "screen": "Detail", "animated": false])
            try setup.call(["cmd": "begin", "navigator": .string("g\(index)"), "operation": "pop"])
            updates.append(
                (0..<100).map { step in
                    Array(#"{"cmd":"update","navigator":"g\#(index)","percent":\#(Double(step + 1) / 200)}"#.utf8)
                })
        }
        let pushes = (0..<clients).map { pushBody("t\($0)") }
        let pops = (0..<clients).map { popBody("t\($0)") }
        return try ClosedLoop.run(
            context: context, endpoint: daemon.commandEndpoint, clients: clients, seconds: seconds
        ) {
            client, n in
            switch n % 4 {
            case 0: pushes[client]
            case 2: pops[client]
            default: updates[client][(n / 2) % 100]
            }
        }
    }
}
