import Foundation

/// The scheduling the packaged systemd unit (config/segued.service) gives segued, applied by the
/// bench to the segued it starts, so the figures are those of the daemon as deployed.
///
/// The subscribers and load generators share the daemon's two cores here, as co-located frontends
/// would on a device; the unit is how a deployment keeps the frame clock ahead of them. Linux applies
/// both a nice value and a realtime policy per thread, so every thread in `/proc/PID/task` is set.
struct ServiceScheduling {
    var nice: Int32?
    /// `SCHED_FIFO` or `SCHED_RR` with its priority, from `CPUSchedulingPolicy=`/`CPUSchedulingPriority=`.
    var realtime: (policy: Int32, priority: Int32)?

    /// Read from the unit in the source tree this bench was built from; empty when it is not there.
    static let packaged: ServiceScheduling = {
        let unit = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("config/segued.service")
        guard let text = try? String(contentsOf: unit, encoding: .utf8) else { return ServiceScheduling() }
        return ServiceScheduling(unit: text)
    }()

    init(nice: Int32? = nil, realtime: (policy: Int32, priority: Int32)? = nil) {
        self.nice = nice
        self.realtime = realtime
    }

    init(unit text: String) {
        var settings: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, !line.hasPrefix("#") else { continue }
            settings[String(parts[0]).trimmingCharacters(in: .whitespaces)] =
                String(parts[1]).trimmingCharacters(in: .whitespaces)
        }
        nice = settings["Nice"].flatMap { Int32($0) }
        let priority = settings["CPUSchedulingPriority"].flatMap { Int32($0) } ?? 1
        switch settings["CPUSchedulingPolicy"] {
        case "fifo": realtime = (SCHED_FIFO, priority)
        case "rr": realtime = (SCHED_RR, priority)
        default: realtime = nil
        }
    }

    /// What the report says about it, e.g. `Nice=-5, SCHED_FIFO 10`.
    var summary: String {
        var parts: [String] = []
        if let nice { parts.append("Nice=\(nice)") }
        if let realtime {
            parts.append("\(realtime.policy == SCHED_FIFO ? "SCHED_FIFO" : "SCHED_RR") \(realtime.priority)")
        }
        return parts.isEmpty ? "default scheduling" : parts.joined(separator: ", ")
    }

    /// Applies it to every thread of `pid` (threads started later inherit it).
    func apply(to pid: pid_t) throws {
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
        for task in tasks {
            guard let tid = id_t(task) else { continue }
            if let nice, setpriority(__priority_which_t(PRIO_PROCESS.rawValue), tid, nice) != 0 {
                throw BenchError("setpriority(\(tid), \(nice)) failed: errno \(errno) (needs CAP_SYS_NICE).")
            }
            if let realtime {
                var parameters = sched_param(sched_priority: realtime.priority)
                guard sched_setscheduler(pid_t(tid), realtime.policy, &parameters) == 0 else {
                    throw BenchError(
                        "sched_setscheduler(\(tid), \(summary)) failed: errno \(errno) (needs CAP_SYS_NICE).")
                }
            }
        }
    }
}
