import Foundation
import SegueCore
import SegueWire

/// N navigators animating at once, S subscribers to every tick.
enum FanoutBench {
    struct Result {
        var navigators: Int
        var rate: Int
        var subscribers: Int
        var seconds: Double
        /// Ticks per second received, averaged over subscribers, and what N × rate would be.
        var receivedPerSecond: Double
        var expectedPerSecond: Double
        var framesClosed: Double
        var lateFrames: Double
        var missedFrames: Double
        var ticksPublished: Double
        var cpuSeconds: Double
        var bytesPerTick: Double
        var lostPerSubscriber: Double
        var latenessP50: Double
        var latenessP99: Double
        var latenessP999: Double
        /// The daemon's `stats.lastStall` when the window had any (why frames were skipped).
        var lastStall: String?
        /// Measured on the frames socket (frame batches) instead of `tick/`.
        var frames = false

        var latePercent: Double { framesClosed > 0 ? lateFrames / framesClosed * 100 : 0 }
        var cores: Double { cpuSeconds / seconds }
        var cpuMillisecondsPerThousandTicks: Double { ticksPublished > 0 ? cpuSeconds * 1e6 / ticksPublished : 0 }
    }

    /// Creates `navigators` navigators named `f0`, `f1`, … with pipelined requests.
    static func createNavigators(_ client: BenchClient, count: Int, prefix: String = "f") throws {
        let requests = (0..<count).map {
            Array(#"{"cmd":"create","navigator":"\#(prefix)\#($0)","root":"Home"}"#.utf8)
        }
        let result = try client.pipeline(requests, window: 1000)
        guard result.ok == count else {
            throw BenchError("Only \(result.ok) of \(count) creates succeeded: \(result.firstError ?? "")")
        }
    }

    /// One window: subscribe, push every navigator with a long animator, measure, wait for the end.
    static func measure(
        daemon: DaemonProcess, client: BenchClient, navigators: Int, rate: Int, subscribers: Int, window: Double,
        slack: Double, frames: Bool = false
    ) throws -> Result {
        try ServiceScheduling.packaged.apply(to: daemon.pid)
        let subs = try (0..<subscribers).map { _ in
            try frames
                ? TickSubscriber(batchesFrom: daemon.framesEndpoint ?? "", navigators: navigators)
                : TickSubscriber(endpoint: daemon.publishEndpoint, navigators: navigators)
        }
        // Pushing thousands of navigators while earlier ones already animate takes seconds (the frame
        // loop shares the daemon's thread): the batch must outlast the pushes, the settle and the
        // window, so big batches run the longest animator allowed and the window shrinks to fit.
        // 1.5 s covers the reads after the window (stats, the subscribers' counts).
        let duration = navigators >= 5000 ? 60 : min(60, window + slack + 1.5 + Double(navigators) / 400)
        let pushStart = Bench.monotonic()
        let pushes = (0..<navigators).map {
            Array(#"{"cmd":"push","navigator":"f\#($0)","screen":"Detail","animator":{"duration":\#(duration)}}"#.utf8)
        }
        let pushed = try client.pipeline(pushes, window: 1000)
        guard pushed.ok == navigators else {
            throw BenchError("Only \(pushed.ok) of \(navigators) pushes started: \(pushed.firstError ?? "")")
        }
        Bench.sleep(seconds: 0.2)
        let pushSeconds = Double(Bench.monotonic() - pushStart) / 1e9
        let window = min(window, duration - pushSeconds - 1.5)
        guard window >= 1 else {
            throw BenchError(
                String(
                    format: "Pushing %d navigators took %.1f s of their %.0f s animators.", navigators,
                    pushSeconds, duration))
        }
        let before = try client.stats()
        let cpuBefore = daemon.cpuSeconds()
        let start = Bench.monotonic()
        for sub in subs { sub.startWindow() }
        Bench.sleep(seconds: window)
        for sub in subs { sub.endWindow() }
        let seconds = Double(Bench.monotonic() - start) / 1e9
        let cpuAfter = daemon.cpuSeconds()
        let after = try client.stats()
        let counts = subs.map { $0.finish() }
        guard after.number("active") >= Double(navigators) else {
            throw BenchError("Transitions ended inside the window (\(after.number("active")) active).")
        }
        var merged = TickSubscriber.Counts()
        for c in counts {
            merged.ticks += c.ticks
            merged.bytes += c.bytes
            merged.lost += c.lost
            for (i, n) in c.lateness.enumerated() { merged.lateness[i] += n }
        }
        func delta(_ key: String) -> Double { after.number(key) - before.number(key) }
        let result = Result(
            navigators: navigators, rate: rate, subscribers: subscribers, seconds: seconds,
            receivedPerSecond: Double(merged.ticks) / Double(subscribers) / seconds,
            expectedPerSecond: Double(navigators * rate),
            framesClosed: delta("framesClosed"), lateFrames: delta("lateFrames"), missedFrames: delta("missedFrames"),
            ticksPublished: delta("ticks"), cpuSeconds: cpuAfter - cpuBefore,
            bytesPerTick: merged.ticks > 0 ? Double(merged.bytes) / Double(merged.ticks) : 0,
            lostPerSubscriber: Double(merged.lost) / Double(subscribers),
            latenessP50: merged.latenessPercentile(50), latenessP99: merged.latenessPercentile(99),
            latenessP999: merged.latenessPercentile(99.9),
            lastStall: delta("stalls") > 0 ? Self.describe(stall: after["lastStall"]) : nil, frames: frames)
        // Let this batch finish so the next one starts from idle navigators.
        let deadline = Bench.monotonic() + Int64((duration + 15) * 1e9)
        while try client.stats().number("active") > 0 {
            guard Bench.monotonic() < deadline else { throw BenchError("Transitions did not finish.") }
            Bench.sleep(seconds: 0.25)
        }
        return result
    }

    /// `stats.lastStall` in a few words: "24 frames in 515.5 ms, 0.3 ms on the CPU; longest: waiting
    /// for work 515.4 ms".
    static func describe(stall: JSON?) -> String? {
        guard let stall, stall.objectValue != nil else { return nil }
        return String(
            format: "last stall: %.0f frames in %.1f ms, %.1f ms on the CPU; longest: ", stall.number("frames"),
            stall.number("milliseconds"), stall.number("cpuMilliseconds"))
            + (stall["longest"]?.stringValue ?? "?") + String(format: " %.1f ms", stall.number("longestMilliseconds"))
            + (stall["overloaded"] == true ? " (skipped by a command under overload)" : "")
    }

    static func report(_ r: Result, raw: RawPublisher.Result?, into report: Report, longTarget: Bool) {
        let label = "\(r.navigators) nav @\(r.rate) Hz ×\(r.subscribers) sub" + (r.frames ? ", frame batches" : "")
        let section = "fanout"
        // The issue's targets: 5,000 navigators at 60 Hz to one subscriber on time, and 1,000 at 60 Hz to
        // one subscriber within 1.5× a raw publisher's CPU.
        let fiveThousand = r.navigators == 5000 && r.rate == 60 && r.subscribers == 1
        let cpuTarget = r.navigators == 1000 && r.rate == 60 && r.subscribers == 1
        let detail = String(format: "%.1f s window", r.seconds)
        report.add(
            Figure(
                section: section, name: "\(label): ticks/s per subscriber", value: r.receivedPerSecond,
                unit: "ticks/s", limit: r.expectedPerSecond, limitName: "N × rate", detail: detail))
        report.add(
            Figure(
                section: section, name: "\(label): missed frames", value: r.missedFrames, unit: "frames",
                limit: 0, limitName: "none",
                target: longTarget || r.navigators == 5000 && r.rate == 60 ? .atMost(1) : nil,
                detail: "stats.missedFrames over the window; \(Int(r.framesClosed)) frames closed"
                    + (r.lastStall.map { "; \($0)" } ?? "")))
        // Why frames were skipped, under the table too (the detail is only in --json).
        if let stall = r.lastStall { report.note("\(label): \(stall) (segued's stats.lastStall).") }
        report.add(
            Figure(
                section: section, name: "\(label): late frames", value: r.latePercent, unit: "%",
                limit: longTarget || fiveThousand ? 0.1 : nil, limitName: "0.1 %",
                target: longTarget || fiveThousand ? .atMost(1) : nil,
                detail: "stats.lateFrames / framesClosed (closed > 2 ms after the frame's instant)"))
        report.add(
            Figure(
                section: section, name: "\(label): tick delay p50/p99", value: r.latenessP99, unit: "ms",
                detail: String(
                    format: "subscriber receive time − tick time: p50 %.2f ms, p99 %.2f ms, p999 %.2f ms",
                    r.latenessP50, r.latenessP99, r.latenessP999)))
        report.add(
            Figure(
                section: section, name: "\(label): ticks lost per subscriber", value: r.lostPerSubscriber,
                unit: "ticks", detail: "frames skipped between a navigator's consecutive ticks"))
        report.add(
            Figure(
                section: section, name: "\(label): daemon CPU", value: r.cores, unit: "cores",
                limit: longTarget ? 1 : nil, limitName: "one core", target: longTarget ? .atMost(1) : nil,
                detail: String(
                    format: "%.2f ms CPU per 1,000 ticks published; %.0f bytes per tick (topic + body)",
                    r.cpuMillisecondsPerThousandTicks, r.bytesPerTick)))
        if let raw, !r.frames {
            report.add(
                Figure(
                    section: section,
                    name: "raw PUB \(r.navigators) msg @\(r.rate) Hz ×\(r.subscribers) sub: CPU per 1,000",
                    value: raw.cpuMillisecondsPerThousand, unit: "ms",
                    detail: String(
                        format:
                            "publisher process CPU over a %.1f s window; %.0f messages/s per subscriber received; %.0f bytes per message (topic + body)",
                        raw.seconds, raw.receivedPerSecond, raw.bytesPerMessage)))
        }
        report.add(
            Figure(
                section: section, name: "\(label): CPU per 1,000 ticks", value: r.cpuMillisecondsPerThousandTicks,
                unit: "ms", limit: raw?.cpuMillisecondsPerThousand,
                limitName: r.frames
                    ? "raw PUB in another process, one tick-sized message per tick, same subscribers"
                    : "raw PUB in another process, same messages and subscribers",
                target: cpuTarget && raw != nil ? .atMost(1.5) : nil,
                detail: String(format: "%.0f bytes per tick", r.bytesPerTick)))
    }
}
