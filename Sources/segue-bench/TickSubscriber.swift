import Foundation
import SegueWire
import Synchronization

/// One subscriber to `tick/` on its own thread and context (as a separate client process would be),
/// counting what arrives inside the measurement window.
final class TickSubscriber: Sendable {
    struct Counts: Sendable {
        var ticks = 0
        var bytes = 0
        /// Frames a navigator skipped between two consecutive ticks (dropped at the high-water mark).
        var lost = 0
        /// Receive wall-clock time minus the tick's `time` (its frame's instant), 50 µs buckets up to 1 s.
        var lateness = [Int](repeating: 0, count: 20_001)

        /// Lateness percentile in milliseconds (bucket upper bound).
        func latenessPercentile(_ p: Double) -> Double {
            let total = lateness.reduce(0, +)
            guard total > 0 else { return 0 }
            let rank = Int((p / 100 * Double(total)).rounded(.up))
            var seen = 0
            for (bucket, count) in lateness.enumerated() {
                seen += count
                if seen >= rank { return Double(bucket + 1) * 0.05 }
            }
            return 1000
        }
    }

    let counts = Box(Counts())
    private let measuring = Atomic<Bool>(false)
    private let stop = Flag()
    private let ready = DispatchSemaphore(value: 0)
    private let failure = Box<String?>(nil)
    private let joiner: Box<Bench.Joiner?> = Box(nil)

    /// Connects, and returns once the subscription is live (a heartbeat came through).
    init(endpoint: String, navigators: Int) throws {
        let joiner = Bench.thread { [self] in
            do { try self.loop(endpoint: endpoint, navigators: navigators) } catch {
                failure.set("\(error)")
                ready.signal()
            }
        }
        self.joiner.set(joiner)
        guard ready.wait(timeout: .now() + 5) == .success, failure.get == nil else {
            stop.set()
            throw BenchError("Subscriber on \(endpoint) did not get a heartbeat: \(failure.get ?? "timeout")")
        }
    }

    func startWindow() { measuring.store(true, ordering: .releasing) }
    func endWindow() { measuring.store(false, ordering: .releasing) }

    func finish() -> Counts {
        stop.set()
        joiner.get?.join()
        return counts.get
    }

    private func loop(endpoint: String, navigators: Int) throws {
        let context = try ZMQContext(ioThreads: 1, socketLinger: .zero)
        defer { context.terminate() }
        let socket = try ZMQSocket(context, .sub)
        defer { socket.close() }
        try socket.setReceiveHighWaterMark(100_000)
        try socket.subscribe("tick/")
        try socket.subscribe("hb/")
        try socket.connect(endpoint)
        var poller = ZMQPoller()
        _ = poller.add(socket)
        var local = Counts()
        var lastFrame = [Int64](repeating: -1, count: navigators)
        var signalled = false
        while !stop.isSet {
            guard try poller.poll(timeout: .milliseconds(50))[0].contains(.readable) else { continue }
            while let frames = try socket.receiveMultipart(dontWait: true) {
                guard frames.count == 2 else { continue }
                let topic = frames[0]
                if topic.first == UInt8(ascii: "h") {
                    if !signalled {
                        signalled = true
                        ready.signal()
                    }
                    continue
                }
                let now = Bench.wallClock()
                // Topic `tick/f<index>/`.
                var navigator = 0
                for byte in topic.dropFirst(6) where byte >= 48 && byte <= 57 {
                    navigator = navigator * 10 + Int(byte - 48)
                }
                let frame = Self.integer(after: Self.frameKey, in: frames[1])
                let time = Self.integer(after: Self.timeKey, in: frames[1])
                let inWindow = measuring.load(ordering: .relaxed)
                if navigator < navigators {
                    if inWindow, lastFrame[navigator] >= 0, frame > lastFrame[navigator] + 1 {
                        local.lost += Int(frame - lastFrame[navigator] - 1)
                    }
                    lastFrame[navigator] = frame
                }
                guard inWindow else { continue }
                local.ticks += 1
                local.bytes += topic.count + frames[1].count
                let bucket = max(0, min(20_000, Int((now - time) / 50_000)))
                local.lateness[bucket] += 1
            }
        }
        counts.set(local)
    }

    static let frameKey = Array(#""frame":"#.utf8)
    static let timeKey = Array(#""time":"#.utf8)

    /// The non-negative integer after `key` in `body` (0 when absent); a byte scan, not a JSON parse,
    /// so a subscriber keeps up with hundreds of thousands of ticks a second.
    static func integer(after key: [UInt8], in body: [UInt8]) -> Int64 {
        body.withUnsafeBufferPointer { bytes in
            let n = bytes.count
            let k = key.count
            var i = 0
            while i + k <= n {
                if bytes[i] == key[0] {
                    var match = true
                    for j in 1..<k where bytes[i + j] != key[j] {
                        match = false
                        break
                    }
                    if match {
                        var value: Int64 = 0
                        var p = i + k
                        while p < n, bytes[p] >= 48, bytes[p] <= 57 {
                            value = value * 10 + Int64(bytes[p] - 48)
                            p += 1
                        }
                        return value
                    }
                }
                i += 1
            }
            return 0
        }
    }
}
