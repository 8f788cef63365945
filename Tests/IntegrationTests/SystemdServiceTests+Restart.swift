import Foundation
import Testing

extension SystemdServiceTests {
    /// The installed `segue` inside, on `endpoint` (`SEGUE_ENDPOINT`, as a local script would).
    func segue(_ machine: BootedSystemd, _ endpoint: String, _ arguments: [String]) throws -> ChildProcess.Result {
        try machine.run(["env", "SEGUE_ENDPOINT=\(endpoint)", "segue"] + arguments)
    }

    /// The events in the log, one JSON line each, read through the ipc endpoint.
    func events(_ machine: BootedSystemd) throws -> [Substring] {
        let log = try segue(machine, Self.ipcCommand, ["log", "--json"])
        #expect(log.status == 0, "segue log failed: \(log.output)")
        return log.stdout.split(separator: "\n")
    }

    /// A frame loop that stops (SIGSTOP) misses its WATCHDOG=1: systemd aborts it (the backtrace in the
    /// journal shows where it was) and starts it again, on a log holding every acknowledged event.
    func checkWatchdogRestart(_ machine: BootedSystemd, pid: Int32) throws {
        let push = try segue(machine, Self.ipcCommand, ["push", "sd", "Last", "--no-animate"])
        #expect(push.status == 0, "push before the stop failed: \(push.output)")
        let acknowledged = try events(machine)
        #expect(acknowledged.count >= 5, "expected the create and four pushes in the log: \(acknowledged)")
        let restarts = Int(try machine.property("NRestarts")) ?? -1
        try #require(try machine.run(["kill", "-STOP", String(pid)]).status == 0, "could not SIGSTOP \(pid)")
        // WatchdogSec=10 after the last ping, then the abort's TimeoutAbortSec, then RestartSec=1.
        let restarted = try machine.wait(for: .seconds(45)) {
            let now = try machine.property("MainPID")
            let state = try machine.property("ActiveState")
            return now != "0" && now != String(pid) && state == "active"
        }
        let journal = try machine.journal()
        #expect(restarted, "no new main PID 45 s after SIGSTOP of \(pid):\n\(journal.suffix(3000))")
        let timedOut = journal.contains("Watchdog timeout")
        #expect(timedOut, "systemd logged no watchdog timeout")
        #expect((Int(try machine.property("NRestarts")) ?? -1) == restarts + 1, "NRestarts did not go up by one")
        // The backtrace reaches the journal through the old process's stderr stream, which journald
        // may still be reading when the new process is already active: wait for it a moment.
        let backtraced = try machine.wait(for: .seconds(10)) {
            try machine.journalContains("*** Program crashed: Aborted")
        }
        let tail = backtraced ? "" : String(try machine.journal().suffix(3000))
        #expect(
            backtraced,
            "the watchdog's SIGABRT left no Swift backtrace in the journal (SWIFT_BACKTRACE= of the unit):\n\(tail)")
        let after = Set(try events(machine))
        let lost = acknowledged.filter { !after.contains($0) }
        #expect(lost.isEmpty, "acknowledged events missing after the restart: \(lost)")
    }

    func checkStop(_ machine: BootedSystemd) throws {
        let cleanBefore = try machine.journal().components(separatedBy: "Stopped cleanly.").count
        let stop = try machine.run(["systemctl", "stop", "segued"], timeout: .seconds(30))
        #expect(stop.status == 0, "systemctl stop failed: \(stop.output)")
        let journal = try machine.journal()
        let cleanAfter = journal.components(separatedBy: "Stopped cleanly.").count
        #expect(cleanAfter == cleanBefore + 1, "no 'Stopped cleanly.' for the stop:\n\(journal.suffix(2000))")
        #expect(try machine.property("Result") == "success", "Result is not success after the stop")
        #expect(try machine.property("ActiveState") == "inactive", "the unit is not inactive after the stop")
        let runtime = try machine.run(["test", "-e", "/run/segue"])
        #expect(runtime.status == 1, "/run/segue is still there after the stop")
    }
}
