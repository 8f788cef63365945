import Dispatch
import Glibc
import Synchronization
import Testing

@testable import SegueDaemon

/// The watcher is tested by signalling its thread with `pthread_kill`: the test runner's threads were
/// started before anything could block SIGTERM in them, so a process-directed `kill(getpid(), ...)`
/// could land on one of them and terminate the run. Process-directed delivery, which needs
/// `blockInProcess()` at the top of `main`, is covered by the daemon's end-to-end tests.
@Suite struct SignalWatcherTests {
    /// Signals the handler received, with a semaphore per arrival to wait on (a hang guard, not a timing).
    final class Received: Sendable {
        private let signals = Mutex<[Signal]>([])
        private let arrived = DispatchSemaphore(value: 0)
        func record(_ signal: Signal) {
            signals.withLock { $0.append(signal) }
            arrived.signal()
        }
        func next() -> Bool { arrived.wait(timeout: .now() + 10) == .success }
        var all: [Signal] { signals.withLock { $0 } }
    }

    @Test func eachSignalReachesTheHandlerAsItsCase() throws {
        let watcher = SignalWatcher()
        let received = Received()
        try watcher.start { received.record($0) }
        let thread = try #require(watcher.thread)
        for signal in [Signal.hangup, .terminate, .interrupt, .hangup] {
            #expect(pthread_kill(thread, signal.signalNumber) == 0)
            #expect(received.next())
        }
        watcher.stop()
        #expect(received.all == [.hangup, .terminate, .interrupt, .hangup])
        #expect(watcher.thread == nil)
    }

    @Test func startingTwiceFailsAndStopAllowsARestart() throws {
        let watcher = SignalWatcher()
        try watcher.start { _ in }
        #expect(throws: SignalWatcherError(operation: "start", errno: EBUSY)) { try watcher.start { _ in } }
        watcher.stop()
        watcher.stop()
        let received = Received()
        try watcher.start { received.record($0) }
        #expect(pthread_kill(try #require(watcher.thread), SIGHUP) == 0)
        #expect(received.next())
        #expect(received.all == [.hangup])
    }

    @Test func theHandlerMayStopTheWatcher() throws {
        let watcher = SignalWatcher()
        let received = Received()
        try watcher.start { signal in
            watcher.stop()
            received.record(signal)
        }
        #expect(pthread_kill(try #require(watcher.thread), SIGTERM) == 0)
        #expect(received.next())
        #expect(watcher.thread == nil)
        try watcher.start { _ in }
        watcher.stop()
    }

    @Test func blockInProcessBlocksTheSignalsAndIgnoresSIGPIPE() throws {
        final class Observed: @unchecked Sendable {
            var blocked: [Int32: Bool] = [:]
        }
        let observed = Observed()
        // On a thread of its own, so the test runner's threads keep their masks.
        var thread = pthread_t()
        let context = Unmanaged.passRetained(observed).toOpaque()
        #expect(
            pthread_create(
                &thread, nil,
                { raw in
                    let observed = Unmanaged<Observed>.fromOpaque(raw!).takeRetainedValue()
                    var none = sigset_t()
                    sigemptyset(&none)
                    pthread_sigmask(SIG_SETMASK, &none, nil)  // start from no blocked signal, whatever the runner's mask
                    SignalWatcher.blockInProcess()
                    var mask = sigset_t()
                    pthread_sigmask(SIG_BLOCK, nil, &mask)
                    for signal in [SIGTERM, SIGINT, SIGHUP, SIGUSR1] {
                        observed.blocked[signal] = sigismember(&mask, signal) == 1
                    }
                    return nil
                }, context) == 0)
        pthread_join(thread, nil)
        #expect(observed.blocked == [SIGTERM: true, SIGINT: true, SIGHUP: true, SIGUSR1: false])
        var action = sigaction()
        sigaction(SIGPIPE, nil, &action)
        #expect(
            unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self))
    }

    @Test func signalNumbersMapBothWays() {
        #expect(Signal.allCases.map(\.signalNumber) == [SIGTERM, SIGINT, SIGHUP])
        #expect(Signal.allCases.map { Signal(signalNumber: $0.signalNumber) } == Signal.allCases)
        #expect(Signal(signalNumber: SIGUSR1) == nil)
        #expect(Signal.allCases.map(\.description) == ["SIGTERM", "SIGINT", "SIGHUP"])
    }
}
