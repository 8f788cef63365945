import Foundation
import SegueCommandLine
import SegueCore
import SegueWire

// segue-bench: a real segued against the raw limits it is built on, measured in the same run.
// See docs/performance.md for what each figure means and the latest results.

// The bare zmq_proxy the relay section compares `segue relay` with runs as a child of this program.
if CommandLine.arguments.count == 4, CommandLine.arguments[1] == RelayBench.rawChildFlag {
    RelayBench.runRawChild(from: CommandLine.arguments[2], publish: CommandLine.arguments[3])
}
// So does the raw publisher the fan-out figures compare the daemon's tick path with.
if let publisher = ProcessInfo.processInfo.environment[RawPublisher.environmentKey] {
    RawPublisher.runChild(arguments: publisher)
}
let options: BenchOptions
do {
    switch try BenchOptions.parse(Array(CommandLine.arguments.dropFirst())) {
    case .run(let parsed): options = parsed
    case .help(let text):
        print(text)
        exit(ExitCode.success.rawValue)
    }
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(ExitCode.usage.rawValue)
}
signal(SIGPIPE, SIG_IGN)
// Every program the chosen sections start is looked for now, not after minutes of figures.
do {
    _ = try DaemonProcess.binary()
    if options.runs("relay") { _ = try DaemonProcess.sibling("segue") }
} catch {
    FileHandle.standardError.write(Data("segue-bench: \(error)\n".utf8))
    exit(69)  // EX_UNAVAILABLE
}

let report = Report(echo: !options.json)
let base =
    (options.directory ?? NSTemporaryDirectory()) + "/segue-bench-\(getpid())"
try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
let context = try ZMQContext(ioThreads: 1, socketLinger: .zero)
var daemons: [DaemonProcess] = []
let runStarted = Bench.monotonic()

@MainActor func startDaemon(
    _ name: String, transport: String = "tcp", frameRate: Int = 60, durability: String = "full", frames: Bool = false
) throws -> DaemonProcess {
    let daemon = try DaemonProcess(
        dataDirectory: base + "/" + name, transport: transport, frameRate: frameRate, durability: durability,
        frames: frames)
    daemons.append(daemon)
    try daemon.waitReady(context: context)
    return daemon
}

@MainActor func stopAll() {
    Report.progress(String(format: "  (%.0f s so far)", Double(Bench.monotonic() - runStarted) / 1e9))
    for daemon in daemons { daemon.stop() }
    daemons.removeAll()
}

@MainActor func machine() -> JSON {
    let cpu =
        (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
        .split(separator: "\n").first { $0.hasPrefix("model name") }?
        .split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "?"
    var name = utsname()
    uname(&name)
    let release = withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    return [
        "cores": .int(ProcessInfo.processInfo.activeProcessorCount), "cpu": .string(cpu), "kernel": .string(release),
        "quick": .bool(options.quick), "date": .string(ISO8601DateFormatter().string(from: Date())),
    ]
}

let pushMessage = CommandBench.pushBody("lat")
struct Raw {
    var fsync = Samples()
    var tcp = Samples()
    var ipc = Samples()
    var echoThroughput: Double = 0
}
var raw = Raw()

do {
    if options.runs("raw") || options.runs("latency") || options.runs("throughput") {
        Report.progress("== raw limits")
        raw.fsync = try RawBaselines.fdatasyncLatency(directory: base, count: options.quick ? 300 : 2000)
        let count = options.latencyPairs * 2
        raw.tcp = try RawBaselines.echoLatency(
            context: context, endpoint: "tcp://127.0.0.1:\(try DaemonProcess.freePort())", message: pushMessage,
            count: count)
        raw.ipc = try RawBaselines.echoLatency(
            context: context, endpoint: "ipc://\(base)/echo.sock", message: pushMessage, count: count)
        raw.echoThroughput = try RawBaselines.echoThroughput(
            context: context, endpoint: "tcp://127.0.0.1:\(try DaemonProcess.freePort())", message: pushMessage,
            clients: 16, seconds: options.throughputSeconds)
        for (name, var samples) in [
            ("raw write+fdatasync", raw.fsync), ("raw zmq round trip tcp", raw.tcp),
            ("raw zmq round trip ipc", raw.ipc),
        ] {
            report.add(
                Figure(
                    section: "raw", name: "\(name) p50", value: samples.percentile(50), unit: "µs",
                    detail: String(
                        format: "p99 %.0f µs, p999 %.0f µs, %d samples",
                        samples.percentile(99), samples.percentile(99.9), samples.count)))
        }
        report.add(
            Figure(
                section: "raw", name: "raw ROUTER echo, 16 clients", value: raw.echoThroughput, unit: "msg/s",
                detail: "\(pushMessage.count)-byte messages over tcp, one in flight per client"))
    }

    if options.runs("latency") {
        Report.progress("== command latency")
        for durability in ["full", "relaxed"] {
            for transport in ["tcp", "ipc"] {
                let daemon = try startDaemon(
                    "latency-\(durability)-\(transport)", transport: transport,
                    durability: durability)
                let echo =
                    transport == "tcp"
                    ? "tcp://127.0.0.1:\(try DaemonProcess.freePort())" : "ipc://\(base)/echo-\(durability).sock"
                var result = try CommandBench.latency(
                    daemon: daemon, context: context, pairs: options.latencyPairs, echoEndpoint: echo)
                stopAll()
                var rtt = result.rtt
                var fsync = result.fsync
                let label = "push \(durability) \(transport)"
                if transport == "tcp" {
                    report.add(CommandBench.engineFigure(section: "latency", label: "\(durability) tcp", result))
                }
                let detail = String(
                    format:
                        "raw rtt p50 %.0f µs, fdatasync p50 %.0f µs (interleaved); pop p50 %.0f µs; %d errors%@; daemon reports durability %@",
                    rtt.percentile(50), fsync.percentile(50), result.pop.percentile(50), result.errors,
                    result.firstError.map { " (first: \($0.prefix(120)))" } ?? "", result.durability)
                if durability == "full" {
                    for (p, factor) in [(50.0, 1.25), (99, 1.5), (99.9, 0)] {
                        report.add(
                            Figure(
                                section: "latency", name: "\(label) p\(p == 99.9 ? "99.9" : String(Int(p)))",
                                value: result.push.percentile(p),
                                unit: "µs", limit: rtt.percentile(p) + fsync.percentile(p),
                                limitName: "raw rtt + fdatasync, same percentile",
                                target: factor > 0 ? .atMost(factor) : nil, detail: detail))
                    }
                } else {
                    for (p, factor) in [(50.0, 1.5), (99, 0), (99.9, 0)] {
                        report.add(
                            Figure(
                                section: "latency", name: "\(label) p\(p == 99.9 ? "99.9" : String(Int(p)))",
                                value: result.push.percentile(p),
                                unit: "µs", limit: rtt.percentile(p), limitName: "raw rtt, same percentile",
                                target: factor > 0 ? .atMost(factor) : nil, detail: detail))
                    }
                    var tight = result.tightRTT
                    report.add(
                        Figure(
                            section: "latency", name: "\(label) p50, tight loop",
                            value: result.tightPush.percentile(50),
                            unit: "µs", limit: tight.percentile(50), limitName: "raw rtt, tight loop",
                            detail: String(
                                format:
                                    "%d pushes back to back (pops between), then %d echoes back to back; p99 %.0f µs against %.0f µs",
                                result.tightPush.count, tight.count, result.tightPush.percentile(99),
                                tight.percentile(99))))
                    if result.durability != "relaxed" {
                        report.note(
                            "The relaxed runs' daemon reported durability \(result.durability): this segued "
                                + "does not apply --durability yet, so the relaxed rows measure \(result.durability).")
                    }
                }
            }
        }
    }

    if options.runs("throughput") {
        Report.progress("== command throughput")
        let daemon = try startDaemon("throughput")
        let result = try CommandBench.throughput(
            daemon: daemon, context: context, clients: 16, seconds: options.throughputSeconds)
        let stats = try BenchClient(context: context, endpoint: daemon.commandEndpoint).stats()
        stopAll()
        report.add(
            Figure(
                section: "throughput", name: "durable push/pop/update, 16 clients", value: result.okPerSecond,
                unit: "cmd/s", limit: raw.echoThroughput, limitName: "raw ROUTER echo, 16 clients",
                target: .atLeast(0.4),
                detail: String(
                    format: "%d replies, %d ok in %.1f s%@; %.0f events; %.1f units per group commit",
                    result.replies, result.ok, result.seconds,
                    result.firstError.map { "; first error \($0.prefix(120))" } ?? "", stats.number("events"),
                    stats.number("store", "units") / max(1, stats.number("store", "commits")))))
    }

    if options.runs("gesture") {
        Report.progress("== gesture path")
        let daemon = try startDaemon("gesture")
        var result = try GestureBench.run(
            daemon: daemon, context: context, rate: 120, frameRate: 60, seconds: options.gestureSeconds)
        stopAll()
        let frame = 1e6 / 60
        let detail = String(
            format:
                "%d updates at 120 Hz (phase sliding over two frames), 60 Hz frames, durable; p50 %.0f µs, p999 %.0f µs; %d errors; own percent shown for %d (p50 %.0f µs, p99 %.0f µs)",
            result.sent, result.reflected.percentile(50), result.reflected.percentile(99.9), result.errors,
            result.shown.count, result.shown.percentile(50), result.shown.percentile(99))
        report.add(
            Figure(
                section: "gesture", name: "update → first tick showing it, p99", value: result.reflected.percentile(99),
                unit: "µs", limit: frame + 1000, limitName: "one frame + 1 ms", target: .atMost(1), detail: detail))
        report.add(
            Figure(
                section: "gesture", name: "update → first tick showing it, p50", value: result.reflected.percentile(50),
                unit: "µs", limit: frame + 1000, limitName: "one frame + 1 ms", detail: detail))
    }

    if options.runs("fanout") {
        Report.progress("== tick fan-out")
        for (rate, navigators) in options.fanoutCases {
            do {
                let compared = options.rawPublishCases.contains(where: { $0 == (rate, navigators) })
                let daemon = try startDaemon("fanout-\(rate)-\(navigators)", frameRate: rate, frames: compared)
                let client = try BenchClient(context: context, endpoint: daemon.commandEndpoint)
                try FanoutBench.createNavigators(client, count: navigators)
                for subscribers in [1, 8] {
                    do {
                        let long = navigators == 1000 && rate == 120 && subscribers == 8
                        Report.progress("  \(navigators) navigators at \(rate) Hz, \(subscribers) subscribers")
                        let result = try FanoutBench.measure(
                            daemon: daemon, client: client, navigators: navigators, rate: rate,
                            subscribers: subscribers, window: long ? options.fanoutLongWindow : options.fanoutWindow,
                            slack: options.fanoutSlack)
                        var rawPublish: RawPublisher.Result?
                        if compared {
                            Report.progress(
                                "  raw PUB, \(navigators) messages a frame at \(rate) Hz, \(subscribers) subscribers")
                            rawPublish = try RawPublisher.measure(
                                navigators: navigators, rate: rate, subscribers: subscribers,
                                window: options.fanoutWindow)
                        }
                        FanoutBench.report(result, raw: rawPublish, into: report, longTarget: long)
                        if compared {
                            // The same ticks as frame batches on the frames socket (opt-in), against
                            // the same raw publisher: nobody takes the JSON form then, so it is not made.
                            Report.progress("  the same, \(subscribers) subscribers to frame batches")
                            let batches = try FanoutBench.measure(
                                daemon: daemon, client: client, navigators: navigators, rate: rate,
                                subscribers: subscribers, window: options.fanoutWindow, slack: options.fanoutSlack,
                                frames: true)
                            FanoutBench.report(batches, raw: rawPublish, into: report, longTarget: false)
                        }
                    } catch {
                        report.note(
                            "\(navigators) navigators at \(rate) Hz, \(subscribers) subscribers: not measured: \(error)"
                        )
                    }
                }
                stopAll()
            }
        }
    }

    if options.runs("relay") {
        Report.progress("== relay tiers")
        let daemon = try startDaemon("relay")
        let result = try RelayBench.measure(
            daemon: daemon, context: context, navigators: 50, seconds: options.relaySeconds)
        stopAll()
        RelayBench.report(result, into: report)
    }

    if options.runs("scale") {
        Report.progress("== scale")
        let daemon = try startDaemon("idle")
        let memory = try ScaleBench.idleMemory(daemon: daemon, context: context, count: options.idleNavigators)
        stopAll()
        report.add(
            Figure(
                section: "scale", name: "RSS per idle navigator at \(memory.navigators)",
                value: memory.perNavigatorBytes,
                unit: "B", limit: 2048, limitName: "2 KiB", target: .atMost(1),
                detail: String(
                    format: "VmRSS %.0f → %.0f KiB; created in %.1f s (pipelined, durable)",
                    memory.beforeKiB, memory.afterKiB, memory.createSeconds)))
        let startup = try ScaleBench.startup(
            directory: base + "/startup", context: context, events: options.startupEvents)
        report.add(
            Figure(
                section: "scale", name: "start-up with \(options.startupEvents) events",
                value: startup.readySeconds * 1000,
                unit: "ms", limit: 1000, limitName: "1 s", target: .atMost(1),
                detail: String(
                    format: "spawn to first ping reply, median of %d; log generated in %.0f s; daemon: %@",
                    startup.starts, startup.generateSeconds, startup.daemonSays)))
        report.add(
            Figure(
                section: "scale", name: "start-up with \(options.startupEvents) events against \(startup.smallEvents)",
                value: startup.readySeconds * 1000, unit: "ms", limit: startup.smallReadySeconds * 1000,
                limitName: "start-up with \(startup.smallEvents) events", target: .atMost(1.2),
                detail: "spawn to first ping reply, medians of \(startup.starts) alternating starts of each"))
    }
    if options.runs("store") {
        Report.progress("== store")
        for figure in try StoreSection.figures(
            directory: base + "/store", largeLogEvents: options.quick ? 200_000 : options.startupEvents)
        {
            report.add(figure)
        }
    }
    if options.store == "postgres" {
        Report.progress("== segued on PostgreSQL")
        let server = try PostgresDaemonBench.Server(url: options.storeURL, scratch: base)
        defer { server.remove() }
        for figure in try PostgresDaemonBench.figures(
            server: server, base: base, context: context, options: options, echoThroughput: raw.echoThroughput)
        {
            report.add(figure)
        }
        let store = try PostgresStoreBench.run(conninfo: server.conninfo, rounds: options.quick ? 200 : 2000)
        for line in store.lines { report.note("PostgreSQL store alone: \(line)") }
    }
} catch {
    stopAll()
    FileHandle.standardError.write(Data("segue-bench: \(error)\n".utf8))
    FileHandle.standardError.write(Data("Data and daemon logs kept in \(base).\n".utf8))
    exit(ExitCode.failure.rawValue)
}
stopAll()
if options.keep {
    report.note("Data and daemon logs kept in \(base).")
} else {
    try? FileManager.default.removeItem(atPath: base)
}
let total = Double(Bench.monotonic() - runStarted) / 1e9
report.note(String(format: "Whole run: %.0f s%@.", total, options.quick ? " (--quick)" : ""))
print(options.json ? report.json(machine: machine()) : report.table())
