import Foundation

/// A named thread that runs the jobs handed to it one at a time, in order: the daemon's serial
/// queues. Not a `DispatchQueue`, whose pool threads are unnamed in `top -H` and, on Linux, run at
/// the default QoS's nice 0 instead of the process's (the unit's `Nice=-5`), below every thread
/// they work for; a thread started here inherits its starter's nice, and leaves a realtime policy.
package final class SerialWorker: @unchecked Sendable {
    private let name: String
    /// Guards the four below.
    private let condition = NSCondition()
    private var waiting: [@Sendable () -> Void] = []
    private var running = false
    private var stopped = false
    private var started = false

    /// The thread, named `name` (at most 15 bytes), starts with the first job.
    package init(named name: String) {
        precondition(name.utf8.count <= 15, "Linux keeps 15 bytes of a thread's name: \(name)")
        self.name = name
    }

    /// Runs `job` on the thread after the jobs before it; dropped once `stop` was called.
    package func async(_ job: @escaping @Sendable () -> Void) {
        condition.withLock {
            guard !stopped else { return }
            waiting.append(job)
            condition.broadcast()
            guard !started else { return }
            started = true
            Thread(named: name) { [self] in
                BackgroundThread.leaveRealtimePolicy()
                run()
            }.start()
        }
    }

    /// Returns once every job handed over before it has run.
    package func drain() {
        condition.withLock {
            while !waiting.isEmpty || running { condition.wait() }
        }
    }

    /// Lets the jobs already handed over run, then ends the thread.
    package func stop() {
        condition.withLock {
            stopped = true
            condition.broadcast()
        }
    }

    private func run() {
        while let job = next() { job() }
    }

    /// The next job, once there is one; nil once stopped with none left.
    private func next() -> (@Sendable () -> Void)? {
        condition.withLock {
            running = false
            condition.broadcast()
            while waiting.isEmpty {
                if stopped { return nil }
                condition.wait()
            }
            running = true
            return waiting.removeFirst()
        }
    }
}
