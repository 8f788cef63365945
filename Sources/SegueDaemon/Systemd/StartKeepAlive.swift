import Foundation
import SegueStore
import Synchronization

/// Keeps systemd waiting for a start that is busy but not hung (a schema migration that rewrites a
/// large log): from `start` to `stop`, asks for `extra` more every `interval`
/// (`EXTEND_TIMEOUT_USEC=`), so `TimeoutStartSec=` counts from the last request. On a thread of its
/// own (`segue-keepalive`), which keeps the process's nice value as a libdispatch timer's would not,
/// timed on the monotonic clock: a wall clock stepped back at boot must not stop the requests.
final class StartKeepAlive: Sendable {
    private let extend: @Sendable (Duration) -> Void
    private let interval: Duration
    private let extra: Duration
    private let running = Atomic<Bool>(false)
    /// Signalled once by the thread as it ends; nil until `start`.
    private let finished = Mutex<DispatchSemaphore?>(nil)

    /// How long a stop may wait for the thread: it looks at `running` this often.
    private static let slice = Duration.milliseconds(50)

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
        let done = DispatchSemaphore(value: 0)
        let fresh = finished.withLock { current -> Bool in
            guard current == nil else { return false }
            current = done
            return true
        }
        guard fresh else { return }
        running.store(true, ordering: .releasing)
        Thread(named: "segue-keepalive") { [self] in
            defer { done.signal() }
            while running.load(ordering: .acquiring) {
                extend(extra)
                let next = ContinuousClock.now + interval
                while running.load(ordering: .acquiring), ContinuousClock.now < next {
                    Thread.sleep(
                        forTimeInterval: Double(min(Self.slice, next - ContinuousClock.now) / .microseconds(1)) / 1e6)
                }
            }
        }.start()
    }

    /// Returns once no more requests will be made.
    func stop() {
        running.store(false, ordering: .releasing)
        guard
            let done = finished.withLock({ current -> DispatchSemaphore? in
                defer { current = nil }
                return current
            })
        else { return }
        done.wait()
    }
}
