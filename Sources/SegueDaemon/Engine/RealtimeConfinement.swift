import Foundation
import SegueStore

/// Keeps a realtime scheduling policy for the frame loop's thread only.
///
/// The packaged unit starts segued under `SCHED_FIFO` (docs/operations.md) so that co-located
/// clients cannot delay a frame. Every thread inherits that policy, including libzmq's I/O thread;
/// when it is busy sending ticks to many subscribers, it holds a core at the same priority as the
/// frame loop, and a frame can be closed late. This puts every other thread back to normal
/// scheduling (they keep the unit's nice value). Lowering is always allowed, also under
/// `RestrictRealtime=`; a thread that cannot be changed is left as it is.
enum RealtimeConfinement {
    /// `sched_getscheduler` ORs `SCHED_RESET_ON_FORK` into the policy of a thread that has it (the
    /// unit's `CPUSchedulingResetOnFork=`, if an operator sets it): the policy is what is left.
    static func isRealtime(_ policy: Int32) -> Bool {
        let base = policy & ~Int32(0x4000_0000)  // SCHED_RESET_ON_FORK
        return base == SCHED_FIFO || base == SCHED_RR
    }

    /// If the calling thread runs a realtime policy, moves every other thread of the process that
    /// also does to `SCHED_OTHER`. Returns whether the calling thread is realtime and how many threads
    /// it moved.
    @discardableResult
    static func confineToCurrentThread() -> (realtime: Bool, moved: Int) {
        guard isRealtime(sched_getscheduler(0)), let own = BackgroundThread.currentThreadID() else { return (false, 0) }
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else {
            return (true, 0)
        }
        var moved = 0
        for task in tasks {
            guard let tid = pid_t(task), tid != own, isRealtime(sched_getscheduler(tid)) else { continue }
            var normal = sched_param(sched_priority: 0)
            if sched_setscheduler(tid, SCHED_OTHER, &normal) == 0 { moved += 1 }
        }
        return (true, moved)
    }
}
