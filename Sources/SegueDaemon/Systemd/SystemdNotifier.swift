import CSystemd
import Glibc

/// Tells systemd where the daemon is in its life cycle, over the `Type=notify` protocol of
/// sd_notify(3): `READY=1` once the sockets are bound and the store is open, `WATCHDOG=1` pings,
/// `RELOADING=1` and `STOPPING=1` around SIGHUP and SIGTERM, and free-text `STATUS=` lines that
/// `systemctl status` shows.
///
/// Every call is a no-op when `NOTIFY_SOCKET` is unset (the daemon was started by hand or by a test),
/// which is what libsystemd's `sd_notify` does itself; the result says which happened.
package struct SystemdNotifier: Sendable {
    /// What became of one notification.
    package enum Outcome: Equatable, Sendable {
        /// The datagram was sent to `NOTIFY_SOCKET`.
        case sent
        /// `NOTIFY_SOCKET` is not set: not running under systemd with `Type=notify`.
        case notSupervised
        /// Sending failed with this errno. systemd then sees no notification: a missed `READY=1` makes
        /// the start time out, a missed `WATCHDOG=1` may restart the daemon.
        case failed(errno: Int32)
    }

    package init() {}

    /// Whether systemd is listening for notifications.
    package var isSupervised: Bool { getenv("NOTIFY_SOCKET") != nil }

    /// Start-up is complete: systemd marks the unit active and starts units ordered after it. `status`
    /// goes in the same datagram, so `systemctl status` never shows a stale start-up message.
    @discardableResult
    package func ready(status: String? = nil) -> Outcome {
        send(["READY=1"] + (status.map { ["STATUS=\(Self.singleLine($0))"] } ?? []))
    }

    /// A one-line human status, shown by `systemctl status`.
    @discardableResult
    package func status(_ text: String) -> Outcome { send(["STATUS=\(Self.singleLine(text))"]) }

    /// Start-up goes on for up to `duration` more from now (`EXTEND_TIMEOUT_USEC=`): systemd extends
    /// `TimeoutStartSec=` instead of killing a start that is busy, not hung.
    @discardableResult
    package func extendStartTimeout(by duration: Duration) -> Outcome {
        send(["EXTEND_TIMEOUT_USEC=\(max(0, duration.inNanoseconds / 1_000))"])
    }

    /// A watchdog keep-alive: must arrive at least every `WatchdogSec=`; ping every `watchdogInterval`.
    @discardableResult
    package func watchdog() -> Outcome { send(["WATCHDOG=1"]) }

    /// A SIGHUP reload has started. systemd 253 and later require `MONOTONIC_USEC=` (CLOCK_MONOTONIC
    /// now, in microseconds) with `RELOADING=1` for `Type=notify-reload`; systemd 252 (Debian 12)
    /// ignores it, so it is always sent. Send `ready()` when the reload is done.
    @discardableResult
    package func reloading(status: String? = nil) -> Outcome {
        var assignments = ["RELOADING=1", "MONOTONIC_USEC=\(Self.monotonicMicroseconds())"]
        if let status { assignments.append("STATUS=\(Self.singleLine(status))") }
        return send(assignments)
    }

    /// Shutdown has begun; systemd stops waiting for watchdog pings and waits for the exit.
    @discardableResult
    package func stopping(status: String? = nil) -> Outcome {
        send(["STOPPING=1"] + (status.map { ["STATUS=\(Self.singleLine($0))"] } ?? []))
    }

    /// How often to call `watchdog()`: half of `WATCHDOG_USEC`, as sd_watchdog_enabled(3) recommends,
    /// or `nil` when the unit has no `WatchdogSec=` (or `WATCHDOG_PID` names another process).
    package var watchdogInterval: Duration? {
        var usec: UInt64 = 0
        guard sd_watchdog_enabled(0, &usec) > 0, usec > 0 else { return nil }
        return .microseconds(Int64(clamping: usec / 2))
    }

    /// Sends newline-separated assignments in one datagram.
    @discardableResult
    package func send(_ assignments: [String]) -> Outcome {
        let result = sd_notify(0, assignments.joined(separator: "\n"))
        if result > 0 { return .sent }
        if result == 0 { return .notSupervised }
        return .failed(errno: -result)
    }

    /// A newline would start a new assignment, so a status text keeps to one line.
    private static func singleLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }

    private static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
    }
}
