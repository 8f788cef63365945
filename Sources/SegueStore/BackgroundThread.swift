import Foundation

/// What a helper thread does first: take its name, and, when it may have been started from the
/// daemon's realtime frame loop, leave that loop's policy (a new thread inherits its creator's
/// scheduling policy, and work that reads or copies megabytes must never hold a frame's core).
package enum BackgroundThread {
    /// Moves the calling thread to the normal policy (`SCHED_OTHER`); a no-op when it is already there.
    package static func leaveRealtimePolicy() {
        var normal = sched_param(sched_priority: 0)
        _ = sched_setscheduler(0, SCHED_OTHER, &normal)
    }

    /// The calling thread's kernel id, from `/proc/thread-self` (a link to `/proc/PID/task/TID`).
    package static func currentThreadID() -> pid_t? {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"),
            let last = target.split(separator: "/").last
        else { return nil }
        return pid_t(last)
    }

    /// Names the calling thread as `top -H`, `ps -L`, `perf` and debuggers show it. The kernel keeps
    /// 15 bytes of a thread's name (it refuses a longer one outright), hence the limit.
    package static func nameCurrentThread(_ name: String) {
        precondition(name.utf8.count <= 15, "Linux keeps 15 bytes of a thread's name: \(name)")
        // Through procfs: Glibc's module leaves out `pthread_setname_np`, and Foundation's
        // `Thread.current.name`, set as a thread starts, can race its starter and name that thread.
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var bytes = Array(name.utf8)
        _ = write(fd, &bytes, bytes.count)
    }
}

extension Thread {
    /// A thread that names itself `name` as it starts (`BackgroundThread.nameCurrentThread`):
    /// Foundation on Linux passes a name set before `start()` to no thread, and reads it back wrong
    /// until then.
    package convenience init(named name: String, _ body: @escaping @Sendable () -> Void) {
        self.init {
            BackgroundThread.nameCurrentThread(name)
            body()
        }
    }
}
