import Dispatch

/// Keeps systemd waiting for a start that is busy but not hung (a schema migration that rewrites a
/// large log): from `start` to `stop`, asks for `extra` more every `interval`
/// (`EXTEND_TIMEOUT_USEC=`), so `TimeoutStartSec=` counts from the last request.
final class StartKeepAlive: @unchecked Sendable {
    private let extend: @Sendable (Duration) -> Void
    private let interval: Duration
    private let extra: Duration
    private let queue = DispatchQueue(label: "segued.start-keep-alive")
    /// Touched only on `queue`.
    private var timer: DispatchSourceTimer?

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
        queue.sync {
            guard timer == nil else { return }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            let nanoseconds = Int(interval.inNanoseconds)
            timer.schedule(deadline: .now(), repeating: .nanoseconds(nanoseconds))
            timer.setEventHandler { [extend, extra] in extend(extra) }
            timer.resume()
            self.timer = timer
        }
    }

    func stop() {
        queue.sync {
            timer?.cancel()
            timer = nil
        }
    }
}
