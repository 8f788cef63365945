import Foundation

/// Keeps a realtime scheduling policy for the frame loop's thread only.
///
/// The packaged unit starts segued under `SCHED_FIFO` (docs/operations.md) so that co-located
/// clients cannot delay a frame. Every thread inherits that policy, including libzmq's I/O thread;
/// when it is busy sending ticks to many subscribers, it holds a core at the same priority as the
/// frame loop, and a frame can be closed late. This puts every other thread back to normal
/// scheduling (they keep the unit's nice value). Lowering is always allowed, also under
/// `RestrictRealtime=`; a thread that cannot be changed is left as it is.
enum RealtimeConfinement {
    /// The calling thread's kernel id, from `/proc/thread-self` (a link to `/proc/PID/task/TID`).
    static func currentThreadID() -> pid_t? {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"),
            let last = target.split(separator: "/").last
        else { return nil }
        return pid_t(last)
    }

    /// If the calling thread runs a realtime policy, moves every other thread of the process that
    /// also does to `SCHED_OTHER`. Returns how many threads it moved (0 when not realtime).
    @discardableResult
    static func confineToCurrentThread() -> Int {
        let policy = sched_getscheduler(0)
        guard policy == SCHED_FIFO || policy == SCHED_RR, let own = currentThreadID() else { return 0 }
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return 0 }
        var moved = 0
        for task in tasks {
            guard let tid = pid_t(task), tid != own else { continue }
            let theirs = sched_getscheduler(tid)
            guard theirs == SCHED_FIFO || theirs == SCHED_RR else { continue }
            var normal = sched_param(sched_priority: 0)
            if sched_setscheduler(tid, SCHED_OTHER, &normal) == 0 { moved += 1 }
        }
        return moved
    }
}
