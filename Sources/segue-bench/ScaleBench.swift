import Foundation
import SegueCore
import SegueWire

/// Memory per idle navigator, and start-up time on a large log.
enum ScaleBench {
    struct Memory {
        var beforeKiB: Double
        var afterKiB: Double
        var navigators: Int
        var createSeconds: Double
        var perNavigatorBytes: Double { (afterKiB - beforeKiB) * 1024 / Double(navigators) }
    }

    /// RSS before and after creating `count` navigators with pipelined DEALER requests.
    static func idleMemory(daemon: DaemonProcess, context: ZMQContext, count: Int) throws -> Memory {
        let client = try BenchClient(context: context, endpoint: daemon.commandEndpoint)
        _ = try client.stats()
        Bench.sleep(seconds: 0.5)
        let before = daemon.residentKiB()
        let start = Bench.monotonic()
        try FanoutBench.createNavigators(client, count: count, prefix: "i")
        let seconds = Double(Bench.monotonic() - start) / 1e9
        // Let the checkpoint the creates triggered land, so the figure is the steady state.
        Bench.sleep(seconds: 2)
        _ = try client.stats()
        return Memory(beforeKiB: before, afterKiB: daemon.residentKiB(), navigators: count, createSeconds: seconds)
    }

    struct Startup {
        var generateSeconds: Double
        var readySeconds: Double
        var daemonSays: String
    }

    /// Generates a log of `events` events, then times `segued` from spawn to its first `ping` reply.
    static func startup(directory: String, context: ZMQContext, events: Int) throws -> Startup {
        let generated = try LogGenerator.generate(directory: directory, events: events)
        // Drop the page cache's advantage? No: a restarting daemon usually finds its log cached, and
        // dropping caches needs root and disturbs other users of this shared machine.
        let daemon = try DaemonProcess(dataDirectory: directory)
        defer { daemon.stop() }
        let ready = try daemon.waitReady(context: context)
        let line = daemon.logText().split(separator: "\n").first { $0.contains("Opened the log") }
        return Startup(generateSeconds: generated, readySeconds: ready, daemonSays: line.map(String.init) ?? "")
    }
}
