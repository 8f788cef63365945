import Foundation
import SegueCore
import SegueProtocol
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
    convenience init(endpoint: String, navigators: Int) throws {
        try self.init(endpoint: endpoint, navigators: navigators, batches: false)
    }

    /// Subscribes to the frame batches of a frames socket (`--publish-frames`), counting their ticks.
    /// That socket has no heartbeat: returns once connected, a moment before any tick is published.
    convenience init(batchesFrom endpoint: String, navigators: Int) throws {
        try self.init(endpoint: endpoint, navigators: navigators, batches: true)
    }

    private init(endpoint: String, navigators: Int, batches: Bool) throws {
        let joiner = Bench.thread { [self] in
            do {
                if batches {
                    try self.batchLoop(endpoint: endpoint, navigators: navigators)
                } else {
                    try self.loop(endpoint: endpoint, navigators: navigators)
                }
            } catch {
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
        try socket.subscribe(Topic.ticks())
        try socket.subscribe(Topic.heartbeatTopic)
        try socket.connect(endpoint)
        var poller = ZMQPoller()
        _ = poller.add(socket)
        var local = Counts()
        var lastFrame = [Int64](repeating: -1, count: navigators)
        var signalled = false
        while !stop.isSet {
            guard try poller.poll(timeout: .milliseconds(50))[0].contains(.readable) else { continue }
            // Frames are read in place from libzmq's messages (no array per frame, none per message):
            // at 120,000 ticks a second per subscriber, eight subscribers share two cores with the daemon.
            while let topic = try socket.withReceivedFrame(dontWait: true, { Self.topic($0, more: $1) }) {
                guard topic.more else { continue }
                var bodyBytes = 0
                var frame: Int64 = 0
                var time: Int64 = 0
                var more = true
                while more,
                    let rest = try socket.withReceivedFrame({ body, next in
                        (body.count, Self.integers(in: body), next)
                    })
                {
                    more = rest.2
                    guard bodyBytes == 0 else { continue }  // a third frame is not a tick's
                    bodyBytes = rest.0
                    (frame, time) = rest.1
                }
                guard let navigator = topic.navigator else {
                    if !signalled {
                        signalled = true
                        ready.signal()
                    }
                    continue
                }
                let now = Bench.wallClock()
                let inWindow = measuring.load(ordering: .relaxed)
                if navigator < navigators {
                    if inWindow, lastFrame[navigator] >= 0, frame > lastFrame[navigator] + 1 {
                        local.lost += Int(frame - lastFrame[navigator] - 1)
                    }
                    lastFrame[navigator] = frame
                }
                guard inWindow else { continue }
                local.ticks += 1
                local.bytes += topic.count + bodyBytes
                let bucket = max(0, min(20_000, Int((now - time) / 50_000)))
                local.lateness[bucket] += 1
            }
        }
        counts.set(local)
    }

    static let frameKey = Array(#""frame":"#.utf8)
    static let timeKey = Array(#""time":"#.utf8)

    /// A topic's length, whether more frames follow, and the navigator index of `tick/f<index>/`
    /// (`nil` for `hb/`, which only signals that the subscription is live).
    static func topic(_ bytes: UnsafeRawBufferPointer, more: Bool) -> (count: Int, more: Bool, navigator: Int?) {
        guard bytes.first != UInt8(ascii: "h") else { return (bytes.count, more, nil) }
        var navigator = 0
        for byte in bytes.dropFirst(6) where byte >= 48 && byte <= 57 {
            navigator = navigator * 10 + Int(byte - 48)
        }
        return (bytes.count, more, navigator)
    }

    /// A tick body's `frame` and `time`: `time` follows `frame` in every body, so one scan finds both.
    static func integers(in body: UnsafeRawBufferPointer) -> (frame: Int64, time: Int64) {
        let frame = integer(after: frameKey, in: body, from: 0)
        let time = integer(after: timeKey, in: body, from: frame.end)
        return (frame.value, time.value)
    }

    /// The non-negative integer after `key` in `body` at or after `start` (0 when absent), and where it
    /// ends; a byte scan, not a JSON parse, so a subscriber keeps up with hundreds of thousands of ticks
    /// a second.
    static func integer(after key: [UInt8], in bytes: UnsafeRawBufferPointer, from start: Int)
        -> (value: Int64, end: Int)
    {
        let n = bytes.count
        let k = key.count
        var i = start
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
                    return (value, p)
                }
            }
            i += 1
        }
        return (0, start)
    }
}

extension TickSubscriber {
    /// The frame-batch counterpart of `loop`: the same counts, read from each batch's ticks.
    fileprivate func batchLoop(endpoint: String, navigators: Int) throws {
        let context = try ZMQContext(ioThreads: 1, socketLinger: .zero)
        defer { context.terminate() }
        let socket = try ZMQSocket(context, .sub)
        defer { socket.close() }
        try socket.setReceiveHighWaterMark(100_000)
        try socket.subscribe(TickBatch.topic)
        try socket.connect(endpoint)
        Bench.sleep(seconds: 0.3)
        ready.signal()
        var poller = ZMQPoller()
        _ = poller.add(socket)
        var local = Counts()
        var lastFrame = [Int64](repeating: -1, count: navigators)
        while !stop.isSet {
            guard try poller.poll(timeout: .milliseconds(50))[0].contains(.readable) else { continue }
            while let topic = try socket.withReceivedFrame(dontWait: true, { ($0.count, $1) }) {
                guard topic.1 else { continue }
                let now = Bench.wallClock()
                let inWindow = measuring.load(ordering: .relaxed)
                var more = true
                while more,
                    let body = try socket.withReceivedFrame({ body, next in
                        (Self.batchTicks(body, navigators: navigators, lastFrame: &lastFrame), body.count, next)
                    })
                {
                    more = body.2
                    guard inWindow, body.0.ticks > 0 else { continue }
                    local.lost += body.0.lost
                    local.ticks += body.0.ticks
                    local.bytes += topic.0 + body.1
                    let bucket = max(0, min(20_000, Int((now - body.0.time) / 50_000)))
                    local.lateness[bucket] += body.0.ticks
                }
            }
        }
        counts.set(local)
    }

    /// A frame batch's tick count and time, and the frames its navigators (`f<index>`) skipped since
    /// their last tick: a walk over the layout (docs/protocol.md, "Frame batches"), no decoding.
    static func batchTicks(_ body: UnsafeRawBufferPointer, navigators: Int, lastFrame: inout [Int64])
        -> (ticks: Int, time: Int64, lost: Int)
    {
        guard body.count >= 29, body[0] == TickBatch.version else { return (0, 0, 0) }
        let frame = body.loadUnaligned(fromByteOffset: 1, as: Int64.self).littleEndian
        let time = body.loadUnaligned(fromByteOffset: 9, as: Int64.self).littleEndian
        let count = Int(body.loadUnaligned(fromByteOffset: 25, as: UInt32.self).littleEndian)
        var at = 29
        var lost = 0
        func length() -> Int { Int(body.loadUnaligned(fromByteOffset: at, as: UInt16.self).littleEndian) }
        for _ in 0..<count {
            let name = length()
            var navigator = 0
            for byte in body[(at + 2)..<(at + 2 + name)] where byte >= 48 && byte <= 57 {
                navigator = navigator * 10 + Int(byte - 48)
            }
            if navigator < navigators {
                if lastFrame[navigator] >= 0, frame > lastFrame[navigator] + 1 {
                    lost += Int(frame - lastFrame[navigator] - 1)
                }
                lastFrame[navigator] = frame
            }
            at += 2 + name + 8 + 2
            let flags = body[at]
            at += 1 + 24
            for _ in 0..<2 { at += 2 + length() + 9 * 8 + 4 }
            if flags & 2 != 0 {
                at += 8
                if flags & 8 != 0 { at += 16 }
                if flags & 16 != 0 { at += 1 }
            }
            if flags & 4 != 0 { at += 32 }
        }
        return (count, time, lost)
    }
}
