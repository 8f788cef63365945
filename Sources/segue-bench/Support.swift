import Foundation
import Synchronization

/// Clocks, percentiles and small thread helpers shared by every measurement.
enum Bench {
    /// Monotonic nanoseconds: for intervals measured inside this process.
    static func monotonic() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// Unix nanoseconds: comparable with the daemon's tick `time` (the frame's instant, docs/design.md, "The frame
    /// clock").
    static func wallClock() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    static func sleep(seconds: Double) {
        guard seconds > 0 else { return }
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0, errno == EINTR { request = remaining }
    }

    /// Runs `body` on its own thread (not a pool: closed-loop clients block, and a pool of two workers
    /// on this two-core machine would serialize them); `join` waits for it.
    static func thread(_ body: @escaping @Sendable () -> Void) -> Joiner {
        let joiner = Joiner()
        let thread = Thread {
            body()
            joiner.done.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
        return joiner
    }

    final class Joiner: Sendable {
        let done = DispatchSemaphore(value: 0)
        func join() { done.wait() }
    }
}

/// A stop signal shared between the orchestrating thread and worker threads.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}

/// A value handed back from a worker thread.
final class Box<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    init(_ initial: Value) { value = Mutex(initial) }
    func set(_ newValue: Value) { value.withLock { $0 = newValue } }
    func update(_ body: (inout Value) -> Void) { value.withLock { body(&$0) } }
    var get: Value { value.withLock { $0 } }
}

/// Latency samples in microseconds.
struct Samples: Sendable {
    private(set) var values: [Double] = []
    private var sorted = true

    init() {}
    init(_ values: [Double]) {
        self.values = values
        sorted = false
    }

    mutating func add(_ microseconds: Double) {
        values.append(microseconds)
        sorted = false
    }

    mutating func add(nanoseconds: Int64) { add(Double(nanoseconds) / 1000) }

    var count: Int { values.count }

    /// The nearest-rank percentile (`p` in 0...100); 0 when empty.
    mutating func percentile(_ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        if !sorted {
            values.sort()
            sorted = true
        }
        let rank = Int((p / 100 * Double(values.count)).rounded(.up)) - 1
        return values[min(values.count - 1, max(0, rank))]
    }

    var mean: Double { values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count) }
}

/// Failures that stop a measurement, with what was being done.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
