import Foundation

/// SIGINT, SIGTERM and SIGHUP noted instead of ending segue mid-work, once (`swipe` cancels its
/// gesture, `ping --count` prints its statistics): a second one ends segue at once
/// (`SA_RESETHAND`), as while the cancel `swipe` sent waits on a silent daemon. A signal
/// ignored at start (`nohup`, a script's `&`) stays ignored. `restore` puts the previous handlers
/// back.
final class NotedSignals {
    nonisolated(unsafe) private static let last = UnsafeMutablePointer<sig_atomic_t>.allocate(capacity: 1)
    private static let handled = [SIGINT, SIGTERM, SIGHUP]
    private var previous: [(signal: Int32, action: sigaction)] = []

    init() {
        Self.last.pointee = 0
        previous = Self.handle(
            Self.handled, flags: Int32(truncatingIfNeeded: SA_RESETHAND),  // 0x80000000
            with: { NotedSignals.last.pointee = $0 })
    }

    /// Installs `handler` for each of `signals` not ignored at start; returns the actions replaced.
    @discardableResult
    static func handle(
        _ signals: [Int32], flags: Int32 = 0, with handler: @escaping @convention(c) (Int32) -> Void
    ) -> [(signal: Int32, action: sigaction)] {
        var replaced: [(signal: Int32, action: sigaction)] = []
        for signal in signals {
            var old = sigaction()
            sigaction(signal, nil, &old)
            if isIgnore(old.__sigaction_handler.sa_handler) { continue }
            var action = sigaction()
            action.__sigaction_handler.sa_handler = handler
            action.sa_flags = flags
            sigemptyset(&action.sa_mask)
            sigaction(signal, &action, nil)
            replaced.append((signal, old))
        }
        return replaced
    }

    /// The signal that came, if one did.
    var caught: Int32? { Self.last.pointee == 0 ? nil : Self.last.pointee }

    func restore() {
        for (signal, var old) in previous { sigaction(signal, &old, nil) }
        previous = []
    }

    /// Ends the process as `signal` would have: its default action, raised again.
    static func die(of signal: Int32) -> Never {
        raiseWithDefaultAction(signal)
        exit(128 + signal)
    }

    /// `signal` with its default action, unblocked, raised: the process ends or stops as it would
    /// have without a handler. Only async-signal-safe calls, so a handler may call it (Ctrl-Z in
    /// `watch` stops this way, and returns here once continued).
    static func raiseWithDefaultAction(_ signal: Int32) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = SIG_DFL
        sigemptyset(&action.sa_mask)
        sigaction(signal, &action, nil)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        sigaddset(&unblocked, signal)
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
        raise(signal)
    }

    /// Whether `handler` is `SIG_IGN`: a signal ignored by whoever started segue stays ignored.
    static func isIgnore(_ handler: (@convention(c) (Int32) -> Void)?) -> Bool {
        handler.map { unsafeBitCast($0, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) } ?? false
    }
}
