import Foundation
import Glibc
import Testing

/// Under a realtime policy (the unit's), only the frame loop keeps it: libzmq's I/O thread and the
/// other helpers go back to normal scheduling, so a busy I/O thread never holds a frame's core.
@Suite(.ownThreads, .serialized) struct SchedulingTests {
    /// Scheduling policy of every thread of `pid` (field 41 of `/proc/PID/task/TID/stat`).
    static func policies(of pid: pid_t) throws -> [pid_t: Int32] {
        var result: [pid_t: Int32] = [:]
        for task in try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") {
            guard let tid = pid_t(task),
                let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // Fields after the command name start at field 3; policy is field 41.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 38, let policy = Int32(fields[38]) { result[tid] = policy }
        }
        return result
    }

    /// The same with `SCHED_RESET_ON_FORK` set, which `sched_getscheduler` reports ORed into the
    /// policy: the frame loop must still see itself as realtime, with the flag as without it.
    @Test(arguments: [false, true])
    func onlyTheFrameLoopKeepsARealtimePolicy(resetOnFork: Bool) throws {
        let daemon = try DaemonProcess()
        let pid = daemon.process.processIdentifier
        // What systemd does for CPUSchedulingPolicy=fifo: every thread realtime (the test runs as
        // root, as CI does; without CAP_SYS_NICE this fails loudly rather than passing vacuously).
        for tid in try Self.policies(of: pid).keys {
            var parameters = sched_param(sched_priority: 10)
            let policy = SCHED_FIFO | (resetOnFork ? Int32(0x4000_0000) : 0)  // SCHED_RESET_ON_FORK
            try #require(sched_setscheduler(tid, policy, &parameters) == 0, "sched_setscheduler errno \(errno)")
        }
        // Only the main thread is checked here: the loop may already be handing the others back (its
        // heartbeat), and with SCHED_RESET_ON_FORK a thread started meanwhile begins as SCHED_OTHER.
        #expect(try Self.policies(of: pid)[pid] == SCHED_FIFO)
        // The loop hands the policy back at its next heartbeat (every second by default).
        var policies: [pid_t: Int32] = [:]
        for _ in 0..<40 {
            usleep(100_000)
            policies = try Self.policies(of: pid)
            if policies.values.filter({ $0 == SCHED_FIFO }).count == 1 { break }
        }
        #expect(policies[pid] == SCHED_FIFO, "the frame loop runs on segued's main thread")
        #expect(policies.filter { $0.key != pid }.values.allSatisfy { $0 == SCHED_OTHER }, "\(policies)")
        #expect(policies.count >= 3, "libzmq's I/O thread and the store's committer exist")
        let client = try TestClient(endpoint: daemon.commandEndpoint)
        #expect(try client.call(["cmd": "ping"])["ok"] == true)
        #expect(daemon.stop() == 0, "log:\n\(daemon.log)")
    }
}
