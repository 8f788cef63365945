import Foundation
import SegueWire

/// The raw limit under the daemon's tick fan-out: a plain PUB in another process sending tick-sized
/// messages on the daemon's frame clock, with nothing computed per message but the frame and time
/// digits, to the same subscribers the daemon's windows use.
///
/// The publisher is this executable again (`SEGUE_BENCH_RAW_PUBLISHER` set), so its CPU time is its
/// own: `/proc/PID/stat` of a process that only publishes, as the daemon's figure is of the daemon.
final class RawPublisher {
    static let environmentKey = "SEGUE_BENCH_RAW_PUBLISHER"

    let process = Process()
    let endpoint: String

    init(navigators: Int, rate: Int) throws {
        endpoint = "tcp://127.0.0.1:\(try DaemonProcess.freePort())"
        let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        process.executableURL = URL(fileURLWithPath: exe)
        var environment = ProcessInfo.processInfo.environment
        environment[Self.environmentKey] = "\(endpoint) \(navigators) \(rate)"
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        try process.run()
    }

    func cpuSeconds() -> Double { ProcessCPU.seconds(pid: process.processIdentifier) }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }

    struct Result {
        var subscribers: Int
        var seconds: Double
        var cpuSeconds: Double
        var published: Double
        var receivedPerSecond: Double
        var bytesPerMessage: Double
        var cpuMillisecondsPerThousand: Double { published > 0 ? cpuSeconds * 1e6 / published : 0 }
    }

    /// One window of `navigators` messages a frame at `rate` Hz to `subscribers` `TickSubscriber`s.
    static func measure(navigators: Int, rate: Int, subscribers: Int, window: Double) throws -> Result {
        let publisher = try RawPublisher(navigators: navigators, rate: rate)
        defer { publisher.stop() }
        let subs = try (0..<subscribers).map { _ in
            try TickSubscriber(endpoint: publisher.endpoint, navigators: navigators)
        }
        Bench.sleep(seconds: 0.5)
        let cpuBefore = publisher.cpuSeconds()
        let start = Bench.monotonic()
        for sub in subs { sub.startWindow() }
        Bench.sleep(seconds: window)
        for sub in subs { sub.endWindow() }
        let seconds = Double(Bench.monotonic() - start) / 1e9
        let cpu = publisher.cpuSeconds() - cpuBefore
        let counts = subs.map { $0.finish() }
        let ticks = counts.reduce(0) { $0 + $1.ticks }
        let bytes = counts.reduce(0) { $0 + $1.bytes }
        return Result(
            subscribers: subscribers, seconds: seconds, cpuSeconds: cpu,
            published: Double(navigators * rate) * seconds,
            receivedPerSecond: Double(ticks) / Double(subscribers) / seconds,
            bytesPerMessage: ticks > 0 ? Double(bytes) / Double(ticks) : 0)
    }

    // MARK: The publishing process

    /// A tick body as the daemon writes it (an animating push, 520 bytes with its topic), with fixed-width
    /// `frame` and `time` fields that are rewritten in place.
    static func template(navigator: Int) -> [UInt8] {
        Array(
            (#"{"navigator":"f\#(navigator)","transition":1,"operation":"push","frame":000000000000,"#
                + #""time":0000000000000000000,"phase":"animating","fraction":0.4166666666666667,"#
                + #""progress":0.6270142402016113,"revision":2,"final":false,"views":{"from":{"screen":"s1","#
                + #""x":-0.18650427206048337,"y":0.0,"alpha":1.0,"scale":1.0,"rotation":0.0,"rotationY":0.0,"#
                + #""mask":1.0,"z":0,"anchor":[0.5,0.5]},"to":{"screen":"s2","x":0.3729857597983887,"y":0.0,"#
                + #""alpha":1.0,"scale":1.0,"rotation":0.0,"rotationY":0.0,"mask":1.0,"z":1,"anchor":[0.5,0.5]}}}"#)
                .utf8)
    }

    /// Runs the publisher until SIGTERM: `arguments` is "ENDPOINT NAVIGATORS RATE".
    static func runChild(arguments: String) -> Never {
        let parts = arguments.split(separator: " ")
        guard parts.count == 3, let navigators = Int(parts[1]), let rate = Int(parts[2]) else { exit(64) }
        do {
            try publish(endpoint: String(parts[0]), navigators: navigators, rate: Int64(rate))
        } catch {
            FileHandle.standardError.write(Data("raw publisher: \(error)\n".utf8))
            exit(1)
        }
        exit(0)
    }

    private static func publish(endpoint: String, navigators: Int, rate: Int64) throws {
        let context = try ZMQContext(ioThreads: 1, socketLinger: .zero)
        let socket = try ZMQSocket(context, .pub)
        try socket.setSendHighWaterMark(100_000)
        try socket.bind(endpoint)
        var bodies = (0..<navigators).map(template(navigator:))
        let topics = (0..<navigators).map { Array("tick/f\($0)/".utf8) }
        let frameKey = Array(#""frame":"#.utf8)
        let timeKey = Array(#""time":"#.utf8)
        let offsets = bodies.map { (offset(of: frameKey, in: $0), offset(of: timeKey, in: $0)) }
        let heartbeat = Array("hb/".utf8)
        let heartbeatBody = Array(#"{"frame":0}"#.utf8)
        // The frame clock's instants, F × 10⁹ / rate ns, split so that nothing overflows 64 bits.
        func instantOf(_ frame: Int64) -> Int64 { frame / rate * 1_000_000_000 + frame % rate * 1_000_000_000 / rate }
        var frame = Int64(Double(Bench.wallClock()) / 1e9 * Double(rate)) + 1
        while true {
            let instant = instantOf(frame)
            let wait = instant - Bench.wallClock()
            if wait > 0 { Bench.sleep(seconds: Double(wait) / 1e9) }
            // A heartbeat every 100 ms tells a new subscriber that its subscription is live.
            if frame % max(1, rate / 10) == 0 {
                _ = heartbeat.withUnsafeBytes { topic in
                    heartbeatBody.withUnsafeBytes { try? socket.sendMultipart(topic, $0, dontWait: true) }
                }
            }
            for index in 0..<navigators {
                bodies[index].withUnsafeMutableBufferPointer { body in
                    writeDigits(frame, into: body, at: offsets[index].0, width: 12)
                    writeDigits(instant, into: body, at: offsets[index].1, width: 19)
                }
                _ = topics[index].withUnsafeBytes { topic in
                    bodies[index].withUnsafeBytes { try? socket.sendMultipart(topic, $0, dontWait: true) }
                }
            }
            frame += 1
        }
    }

    /// Where the value after `key` starts in `body`.
    private static func offset(of key: [UInt8], in body: [UInt8]) -> Int {
        var index = 0
        while !body[index..<(index + key.count)].elementsEqual(key) { index += 1 }
        return index + key.count
    }

    private static func writeDigits(
        _ value: Int64, into body: UnsafeMutableBufferPointer<UInt8>, at start: Int, width: Int
    ) {
        var rest = value
        for offset in stride(from: width - 1, through: 0, by: -1) {
            body[start + offset] = UInt8(48 + rest % 10)
            rest /= 10
        }
    }
}

/// CPU time of a process of this machine.
enum ProcessCPU {
    /// User + system CPU seconds of every thread of `pid` (`/proc/PID/stat` fields 14 and 15).
    static func seconds(pid: Int32) -> Double {
        let time = times("/proc/\(pid)/stat")
        return time.user + time.system
    }

    /// User and system CPU seconds of one thread: `pid` itself for a process's main thread.
    static func thread(_ tid: Int32, of pid: Int32) -> (user: Double, system: Double) {
        times("/proc/\(pid)/task/\(tid)/stat")
    }

    private static func times(_ path: String) -> (user: Double, system: Double) {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8), let close = text.lastIndex(of: ")")
        else { return (0, 0) }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state); utime is field 14, stime field 15, in clock ticks.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return (0, 0) }
        let tick = Double(sysconf(Int32(_SC_CLK_TCK)))
        return (user / tick, system / tick)
    }
}
