import Foundation

/// What a helper thread does first when it may have been started from the daemon's realtime frame
/// loop: a new thread inherits its creator's scheduling policy, and work that reads or copies
/// megabytes must never hold a frame's core.
package enum BackgroundThread {
    /// Moves the calling thread to the normal policy (`SCHED_OTHER`); a no-op when it is already there.
    package static func leaveRealtimePolicy() {
        var normal = sched_param(sched_priority: 0)
        _ = sched_setscheduler(0, SCHED_OTHER, &normal)
    }
}
