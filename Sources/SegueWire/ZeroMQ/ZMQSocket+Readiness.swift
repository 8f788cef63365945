import CZeroMQ
import Glibc

/// Waiting on one socket with sub-millisecond precision.
///
/// `zmq_poll` counts its timeout in whole milliseconds, which is longer than a group commit's whole
/// cycle. A socket's `ZMQ_FD` is edge-triggered (it signals that libzmq has commands to process,
/// not that a message is there), so the wait checks `ZMQ_EVENTS` before and after every wake-up.
extension ZMQSocket {
    /// Whether a message can be received now (`ZMQ_EVENTS` has `ZMQ_POLLIN`).
    package var hasPendingMessage: Bool {
        get throws(ZMQError) { try intOption(ZMQ_EVENTS, "ZMQ_EVENTS") & Int32(ZMQ_POLLIN) != 0 }
    }

    /// Waits until a message can be received or `nanoseconds` pass; true if one can.
    ///
    /// - Parameter timer: a ``ZMQWaitTimer`` owned by the calling thread.
    package func waitReadable(nanoseconds: Int64, timer: ZMQWaitTimer) throws(ZMQError) -> Bool {
        let descriptor = try intOption(ZMQ_FD, "ZMQ_FD")
        let clock = ContinuousClock()
        let deadline = clock.now + .nanoseconds(nanoseconds)
        while true {
            if try hasPendingMessage { return true }
            let remaining = clock.now.duration(to: deadline)
            guard remaining > .zero else { return false }
            let (seconds, attoseconds) = remaining.components
            let result = segue_wait_readable(
                descriptor, timer.descriptor, seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
            // A timeout and EINTR both end in the ZMQ_EVENTS check above; any other failure ends the wait.
            if result < 0, errno != EINTR { return try hasPendingMessage }
        }
    }
}

/// The timerfd that gives ``ZMQSocket/waitReadable(nanoseconds:timer:)`` its precision; one per thread.
package final class ZMQWaitTimer {
    let descriptor: Int32

    package init() throws(ZMQError) {
        descriptor = segue_timerfd_create()
        guard descriptor >= 0 else { throw ZMQError(code: .init(rawValue: errno), call: "timerfd_create") }
    }

    deinit { close(descriptor) }
}
