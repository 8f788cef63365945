import Foundation
import SegueStore

/// Keeps systemd waiting for a start that is busy but not hung (a schema migration that rewrites a
/// large log): from `start` to `stop`, asks for `extra` more every `interval`
/// (`EXTEND_TIMEOUT_USEC=`), so `TimeoutStartSec=` counts from the last request. On a thread of its
/// own (`segue-keepalive`), which keeps the process's nice value as a libdispatch timer's would not.
final class StartKeepAlive: @unchecked Sendable {
    private let extend: @Sendable (Duration) -> Void
    private let interval: Duration
    private let extra: Duration
    /// Guards `running` and `thread`.
    private let condition = NSCondition()
    private var running = false
    private var thread: Thread?

    init(
        extend: @escaping @Sendable (Duration) -> Void, interval: Duration = .seconds(5),
        extra: Duration = .seconds(20)
    ) {
        self.extend = extend
        self.interval = interval
        self.extra = extra
    }

    /// Asks for more time at once, then every `interval` until `stop`.
    func start() {
        condition.withLock {
            guard thread == nil else { return }
            running = true
            let thread = Thread(named: "segue-keepalive") { [self] in run() }
            self.thread = thread
            thread.start()
        }
    }

    /// Returns once no more requests will be made.
    func stop() {
        condition.withLock {
            running = false
            condition.broadcast()
            while thread != nil { condition.wait() }
        }
    }

    private func run() {
        condition.lock()
        defer {
            thread = nil
            condition.broadcast()
            condition.unlock()
        }
        while running {
            extend(extra)
            let until = Date().addingTimeInterval(Double(interval.inNanoseconds) / 1e9)
            while running, condition.wait(until: until) {}
        }
    }
}
