import Foundation
import Synchronization

/// Kills the daemons a test process started when that process dies of a crash (a failed
/// `precondition`, a fault), which skips every `deinit` and `defer` that would have stopped them:
/// otherwise they run on, holding ports and CPU through the next test run.
///
/// The handler runs before the one it replaces (the Swift runtime's backtracer), which it then
/// restores: a fault is raised again when the faulting instruction runs again, an abort or trap
/// by re-raising. It reads the pids from fixed storage, without allocating or locking.
enum ChildReaper {
    private static let capacity = 1024
    nonisolated(unsafe) private static let pids: UnsafeMutablePointer<Atomic<Int32>> = {
        let storage = UnsafeMutablePointer<Atomic<Int32>>.allocate(capacity: capacity)
        for index in 0..<capacity { (storage + index).initialize(to: Atomic(0)) }
        return storage
    }()
    /// Synchronous faults come back when the handler returns; the others are raised again.
    private static let faults: [Int32] = [SIGILL, SIGSEGV, SIGBUS, SIGFPE]
    private static let signals: [Int32] = faults + [SIGABRT, SIGTRAP]
    nonisolated(unsafe) private static let previous: UnsafeMutablePointer<sigaction> = .allocate(capacity: 32)
    private static let installed: Void = install()

    /// Watches `pid` until `forget`.
    static func watch(_ pid: Int32) {
        _ = installed
        for index in 0..<capacity {
            if pids[index].compareExchange(expected: 0, desired: pid, ordering: .relaxed).exchanged { return }
        }
    }

    /// Stops watching `pid` (it has exited: the number may be reused).
    static func forget(_ pid: Int32) {
        for index in 0..<capacity {
            if pids[index].compareExchange(expected: pid, desired: 0, ordering: .relaxed).exchanged { return }
        }
    }

    private static func install() {
        for signal in signals {
            var action = sigaction()
            action.sa_flags = SA_SIGINFO
            sigemptyset(&action.sa_mask)
            action.__sigaction_handler.sa_sigaction = { signal, _, _ in
                for index in 0..<ChildReaper.capacity {
                    let pid = ChildReaper.pids[index].load(ordering: .relaxed)
                    if pid > 0 { kill(pid, SIGKILL) }
                }
                sigaction(signal, ChildReaper.previous + Int(signal), nil)
                if !ChildReaper.faults.contains(signal) { raise(signal) }
            }
            sigaction(signal, &action, previous + Int(signal))
        }
    }
}
