import Foundation
import SegueWire
import Synchronization

/// `relay`: the delay each tier of `segue relay` adds to a tick, and the relay's CPU per 1,000
/// messages, against two tiers of bare `zmq_proxy` fed by the same daemon in the same run.
///
/// One daemon animates N navigators; two chains hang off its publish endpoint: `segue relay` →
/// `segue relay`, and raw proxy → raw proxy (this program in ``rawChildFlag`` mode: an XSUB, an XPUB
/// and `zmq_proxy`, nothing else). A subscriber thread on the daemon and below each tier stamps each
/// tick's arrival with the one monotonic clock; a tier's delay is the arrival below it minus the
/// arrival above it, tick by tick.
enum RelayBench {
    /// argv[1] of the child process that runs one bare proxy.
    static let rawChildFlag = "--raw-proxy-child"

    /// The bare proxy: same socket options as the relay, no control socket, no statistics, no log.
    static func runRawChild(from upstream: String, publish: String) -> Never {
        do {
            let context = try ZMQContext()
            let frontend = try ZMQSocket(context, .xsub)
            try frontend.setReceiveHighWaterMark(100_000)
            try frontend.connect(upstream)
            let backend = try ZMQSocket(context, .xpub)
            try backend.setSendHighWaterMark(100_000)
            try backend.bind(publish)
            signal(SIGTERM, SIG_DFL)
            try ZMQProxy.run(frontend: frontend, backend: backend, control: nil)
        } catch {
            FileHandle.standardError.write(Data("raw proxy: \(error)\n".utf8))
            exit(1)
        }
        exit(0)
    }

    struct Result {
        var ticks: Int
        var navigators: Int
        var tiers: [(relay: Samples, raw: Samples)]
        /// CPU milliseconds per 1,000 messages forwarded by the first tier.
        var relayCPU: Double
        var rawCPU: Double
    }

    static func measure(daemon: DaemonProcess, context: ZMQContext, navigators: Int, seconds: Double) throws -> Result {
        let client = try BenchClient(context: context, endpoint: daemon.commandEndpoint)
        try FanoutBench.createNavigators(client, count: navigators, prefix: "r")
        let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let segue = try DaemonProcess.sibling("segue")
        func relay(_ from: String) throws -> Forwarder {
            let port = try DaemonProcess.freePort()
            return try Forwarder(
                segue, ["relay", "--from", from, "--publish", "tcp://127.0.0.1:\(port)", "--stats-interval", "0"],
                port: port)
        }
        func raw(_ from: String) throws -> Forwarder {
            let port = try DaemonProcess.freePort()
            return try Forwarder(exe, [rawChildFlag, from, "tcp://127.0.0.1:\(port)"], port: port)
        }
        let relay1 = try relay(daemon.publishEndpoint)
        let relay2 = try relay(relay1.endpoint)
        let raw1 = try raw(daemon.publishEndpoint)
        let raw2 = try raw(raw1.endpoint)
        let forwarders = [relay1, relay2, raw1, raw2]
        defer { for forwarder in forwarders { forwarder.stop() } }
        let stampers = try [daemon.publishEndpoint, relay1.endpoint, relay2.endpoint, raw1.endpoint, raw2.endpoint]
            .map(Stamper.init)
        let cpuBefore = [relay1.cpuSeconds(), raw1.cpuSeconds()]
        let pushes = (0..<navigators).map {
            Array(#"{"cmd":"push","navigator":"r\#($0)","screen":"Detail","animator":{"duration":\#(seconds)}}"#.utf8)
        }
        _ = try client.pipeline(pushes)
        Bench.sleep(seconds: seconds + 1)
        let cpuAfter = [relay1.cpuSeconds(), raw1.cpuSeconds()]
        let arrivals = stampers.map { $0.finish() }
        var tiers = [(relay: Samples(), raw: Samples()), (relay: Samples(), raw: Samples())]
        var ticks = 0
        for (body, direct) in arrivals[0] {
            guard let r1 = arrivals[1][body], let r2 = arrivals[2][body], let p1 = arrivals[3][body],
                let p2 = arrivals[4][body]
            else { continue }
            ticks += 1
            tiers[0].relay.add(nanoseconds: r1 - direct)
            tiers[1].relay.add(nanoseconds: r2 - r1)
            tiers[0].raw.add(nanoseconds: p1 - direct)
            tiers[1].raw.add(nanoseconds: p2 - p1)
        }
        guard ticks > 0 else { throw BenchError("No tick reached every subscriber; see the forwarders' output.") }
        let perThousand = { (cpu: Double, forwarded: Int) in cpu * 1e6 / Double(max(1, forwarded)) }
        return Result(
            ticks: ticks, navigators: navigators, tiers: tiers,
            relayCPU: perThousand(cpuAfter[0] - cpuBefore[0], arrivals[1].count),
            rawCPU: perThousand(cpuAfter[1] - cpuBefore[1], arrivals[3].count))
    }

    static func report(_ result: Result, into report: Report) {
        var result = result
        for index in result.tiers.indices {
            for p in [50.0, 99] {
                let detail = String(
                    format: "%d ticks of %d navigators at 60 Hz, arrival below the tier minus above it; raw p50 "
                        + "%.0f µs, p99 %.0f µs", result.ticks, result.navigators,
                    result.tiers[index].raw.percentile(50), result.tiers[index].raw.percentile(99))
                report.add(
                    Figure(
                        section: "relay", name: "tier \(index + 1) delay p\(Int(p))",
                        value: result.tiers[index].relay.percentile(p), unit: "µs",
                        limit: result.tiers[index].raw.percentile(p), limitName: "raw zmq_proxy tier, same percentile",
                        detail: detail))
            }
        }
        report.add(
            Figure(
                section: "relay", name: "relay CPU per 1,000 messages", value: result.relayCPU, unit: "ms",
                limit: result.rawCPU, limitName: "raw zmq_proxy",
                detail: "user + system CPU of the first tier's process over the run, per message it forwarded"))
    }

    /// A forwarder process on a loopback port: `segue relay`, or the raw child.
    final class Forwarder {
        let process = Process()
        let endpoint: String

        init(_ executable: String, _ arguments: [String], port: Int) throws {
            endpoint = "tcp://127.0.0.1:\(port)"
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let deadline = Bench.monotonic() + 10_000_000_000
            while !DaemonProcess.accepts(port: port) {
                guard process.isRunning, Bench.monotonic() < deadline else {
                    throw BenchError("\(executable) \(arguments.joined(separator: " ")) did not listen.")
                }
                Bench.sleep(seconds: 0.002)
            }
        }

        func cpuSeconds() -> Double { ProcessCPU.seconds(pid: process.processIdentifier) }

        func stop() {
            guard process.isRunning else { return }
            kill(process.processIdentifier, SIGTERM)
            let deadline = Bench.monotonic() + 5_000_000_000
            while process.isRunning, Bench.monotonic() < deadline { Bench.sleep(seconds: 0.01) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }

    /// A subscriber to `tick/` on its own thread and context that stamps each tick's arrival.
    final class Stamper: Sendable {
        private let arrivals = Box<[[UInt8]: Int64]>([:])
        private let stop = Flag()
        private let ready = DispatchSemaphore(value: 0)
        private let joiner: Box<Bench.Joiner?> = Box(nil)

        /// Subscribes and returns once a heartbeat came through (the subscription is in place).
        init(_ endpoint: String) throws {
            let failure = Box<String?>(nil)
            joiner.set(
                Bench.thread { [self] in
                    do { try loop(endpoint) } catch { failure.set("\(error)") }
                    ready.signal()
                })
            guard ready.wait(timeout: .now() + 5) == .success, failure.get == nil else {
                stop.set()
                throw BenchError("No heartbeat through \(endpoint): \(failure.get ?? "timeout")")
            }
        }

        private func loop(_ endpoint: String) throws {
            let context = try ZMQContext()
            let socket = try ZMQSocket(context, .sub)
            try socket.setReceiveHighWaterMark(0)
            try socket.subscribe("tick/")
            try socket.subscribe("hb/")
            try socket.connect(endpoint)
            try socket.setReceiveTimeout(.milliseconds(100))
            var stamped: [[UInt8]: Int64] = [:]
            var heard = false
            while !stop.isSet {
                guard let frames = try socket.receiveMultipart(), frames.count == 2 else { continue }
                let now = Bench.monotonic()
                if frames[0].first == UInt8(ascii: "t") {
                    stamped[frames[1]] = now
                } else if !heard {
                    heard = true
                    ready.signal()
                }
            }
            arrivals.set(stamped)
        }

        func finish() -> [[UInt8]: Int64] {
            stop.set()
            joiner.get?.join()
            return arrivals.get
        }
    }
}
