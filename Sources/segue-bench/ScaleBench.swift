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
        /// Spawn to first `ping` reply, median of alternating starts, on the large and on the small log.
        var readySeconds: Double
        var smallReadySeconds: Double
        var smallEvents: Int
        var starts: Int
        var daemonSays: String
    }

    /// Generates a log of `events` events and one of 1,000, then times `segued` from spawn to its first
    /// `ping` reply on each, alternating, `starts` times each (medians), so both see the same machine.
    static func startup(directory: String, context: ZMQContext, events: Int, starts: Int = 3) throws -> Startup {
        let generated = try LogGenerator.generate(directory: directory, events: events)
        let smallEvents = 1_000
        let small = directory + "-small"
        _ = try LogGenerator.generate(directory: small, events: smallEvents)
        // The page cache is kept: a restarting daemon usually finds its log cached, and dropping caches
        // needs root and disturbs other users of this shared machine.
        var large = Samples()
        var smallTimes = Samples()
        var line = ""
        for _ in 0..<starts {
            for (path, isLarge) in [(small, false), (directory, true)] {
                let daemon = try DaemonProcess(dataDirectory: path)
                defer { daemon.stop() }
                let ready = try daemon.waitReady(context: context)
                if isLarge {
                    large.add(ready)
                    line =
                        daemon.logText().split(separator: "\n").last { $0.contains("Opened the log") }.map(String.init)
                        ?? ""
                } else {
                    smallTimes.add(ready)
                }
            }
        }
        return Startup(
            generateSeconds: generated, readySeconds: large.percentile(50),
            smallReadySeconds: smallTimes.percentile(50),
            smallEvents: smallEvents, starts: starts, daemonSays: line)
    }
}
