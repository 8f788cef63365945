import CSystemd
import Glibc
import SegueStore
import Synchronization

/// Receives SIGTERM, SIGINT and SIGHUP on one thread of its own and hands them to a handler, so that
/// no code ever runs in a signal handler's async-signal-unsafe context.
///
/// How (swift-service-lifecycle's rule, done with Linux's signalfd(2)): `blockInProcess()` blocks the
/// three signals in the main thread before any other thread exists, so every thread inherits the mask
/// and a process-directed signal stays pending instead of running its default action (exit) on some
/// thread. The watcher thread reads them from a signalfd, which reports signals pending for the process
/// or for the reading thread, whichever thread the kernel picked. signalfd rather than sigwait(3)
/// because it can be polled together with an eventfd, so `stop()` can wake and join the thread.
///
/// If a thread started before `blockInProcess()` does not block the signals, the kernel may deliver a
/// SIGTERM to it and the process dies of the default action; that is why the call belongs at the very
/// top of `main`. Tests run inside a runner that already has threads, so they signal the watcher
/// thread directly (`pthread_kill`); the daemon's end-to-end tests send real process signals.
package final class SignalWatcher: Sendable {
    private struct Running: @unchecked Sendable {
        let thread: pthread_t
        let wakeFD: Int32
    }

    private let state = Mutex<Running?>(nil)

    package init() {}

    /// The signals `blockInProcess()` blocks and the watcher reads.
    package static var watchedSignals: [Signal] { Signal.allCases }

    /// Blocks SIGTERM, SIGINT and SIGHUP in the calling thread (and so in every thread it starts later)
    /// and ignores SIGPIPE, so a client that hangs up mid-write yields EPIPE instead of killing the
    /// daemon. Call first thing in `main`.
    package static func blockInProcess() {
        var set = signalSet()
        pthread_sigmask(SIG_BLOCK, &set, nil)
        signal(SIGPIPE, SIG_IGN)
    }

    /// Starts the watcher thread, which calls `handler` once per signal received, in order, on that
    /// thread. The handler should only record the request and wake whoever acts on it.
    ///
    /// - Throws: `SignalWatcherError` if the watcher is already running or a system call fails.
    package func start(handler: @escaping @Sendable (Signal) -> Void) throws(SignalWatcherError) {
        try state.withLock { running throws(SignalWatcherError) in
            guard running == nil else { throw SignalWatcherError(operation: "start", errno: EBUSY) }
            var set = Self.signalSet()
            let signalFD = signalfd(-1, &set, Int32(SFD_CLOEXEC))
            guard signalFD >= 0 else { throw SignalWatcherError(operation: "signalfd", errno: errno) }
            let wakeFD = eventfd(0, Int32(EFD_CLOEXEC))
            guard wakeFD >= 0 else {
                let error = errno
                close(signalFD)
                throw SignalWatcherError(operation: "eventfd", errno: error)
            }
            let context = Unmanaged.passRetained(
                WatchContext(signalFD: signalFD, wakeFD: wakeFD, handler: handler)
            ).toOpaque()
            // The thread is born with the signals blocked (a new thread inherits its creator's mask), so
            // a signal directed at it is readable from the signalfd from its first instruction, even when
            // `blockInProcess()` was not called, as in tests.
            var previousMask = sigset_t()
            pthread_sigmask(SIG_BLOCK, &set, &previousMask)
            var thread = pthread_t()
            let result = pthread_create(
                &thread, nil,
                { raw in
                    let context = Unmanaged<WatchContext>.fromOpaque(raw!).takeRetainedValue()
                    BackgroundThread.nameCurrentThread("segue-signals")
                    context.run()
                    return nil
                }, context)
            pthread_sigmask(SIG_SETMASK, &previousMask, nil)
            guard result == 0 else {
                Unmanaged<WatchContext>.fromOpaque(context).release()
                close(signalFD)
                close(wakeFD)
                throw SignalWatcherError(operation: "pthread_create", errno: result)
            }
            running = Running(thread: thread, wakeFD: wakeFD)
        }
    }

    /// The watcher thread, while it runs; tests direct signals at it with `pthread_kill`.
    package var thread: pthread_t? { state.withLock { $0?.thread } }

    /// Wakes the watcher thread and waits for it to exit (from the handler itself: lets it exit after
    /// the handler returns). Signals that arrive afterwards stay blocked and pending.
    package func stop() {
        guard
            let running = state.withLock({ current -> Running? in
                defer { current = nil }
                return current
            })
        else {
            return
        }
        var one: UInt64 = 1
        _ = write(running.wakeFD, &one, MemoryLayout<UInt64>.size)
        if pthread_equal(pthread_self(), running.thread) != 0 {
            // Called from the handler (or the last reference died there): joining itself would deadlock,
            // so the thread exits on its own after the handler returns; its context closes the signalfd.
            pthread_detach(running.thread)
            return
        }
        pthread_join(running.thread, nil)
    }

    deinit { stop() }

    fileprivate static func signalSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in watchedSignals { sigaddset(&set, signal.signalNumber) }
        return set
    }
}

/// What the watcher thread owns: its descriptors and the handler.
private final class WatchContext {
    let signalFD: Int32
    let wakeFD: Int32
    let handler: @Sendable (Signal) -> Void

    init(signalFD: Int32, wakeFD: Int32, handler: @escaping @Sendable (Signal) -> Void) {
        self.signalFD = signalFD
        self.wakeFD = wakeFD
        self.handler = handler
    }

    func run() {
        // The thread leaves only when woken by `stop()`, which has written to `wakeFD` by then, so it
        // owns and closes both descriptors.
        defer {
            close(signalFD)
            close(wakeFD)
        }
        var fds = [
            pollfd(fd: signalFD, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let ready = poll(&fds, 2, -1)
            // EINTR and ENOMEM are transient; EFAULT and EINVAL cannot happen with these arguments.
            if ready < 0 { continue }
            if fds[1].revents != 0 { return }
            guard fds[0].revents & Int16(POLLIN) != 0 else { continue }
            var info = signalfd_siginfo()
            let size = MemoryLayout<signalfd_siginfo>.size
            let count = read(signalFD, &info, size)
            if count == size, let signal = Signal(signalNumber: Int32(info.ssi_signo)) {
                handler(signal)
            }
        }
    }
}

/// A system call the signal watcher needed failed.
package struct SignalWatcherError: Error, Equatable, Sendable, CustomStringConvertible {
    package var operation: String
    package var errno: Int32

    package var description: String {
        "cannot watch signals: \(operation) failed: \(String(cString: strerror(errno))) (errno \(errno))"
    }
}
