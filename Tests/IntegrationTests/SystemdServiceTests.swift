import Foundation
import Testing

/// The unit as `make install` installs it, under a real systemd (PID 1 in fresh namespaces, booted by
/// scripts/systemd-boot.sh) and its sandbox, installed and started with the steps docs/operations.md
/// gives ("Install"). Each promise of the unit is its own expectation; a machine that cannot boot
/// one (no root, no namespaces) skips the suite and says why; under `CI=true` (.ci/run, which
/// installs what it needs) that is a failure instead.
@Suite(
    .ownThreads,
    .enabled(
        if: BootedSystemd.unavailable == nil || ProcessInfo.processInfo.environment["CI"] == "true",
        Comment(rawValue: BootedSystemd.unavailable ?? "")))
struct SystemdServiceTests {
    static let ipcCommand = "ipc:///run/segue/command.sock"
    static let ipcPublish = "ipc:///run/segue/publish.sock"
    static let tcpCommand = "tcp://127.0.0.1:7400"
    static let tcpPublish = "tcp://127.0.0.1:7401"

    @Test func theInstalledUnitKeepsItsPromisesUnderARealSystemd() throws {
        if let reason = BootedSystemd.unavailable {
            Issue.record("CI=true, and CI must run the real-systemd test, but: \(reason)")
            return
        }
        let started = ContinuousClock.now
        let machine = try BootedSystemd()
        defer {
            machine.down()
            print(
                "SystemdServiceTests: booted in \(String(format: "%.2f", machine.bootSeconds)) s; whole test \(ContinuousClock.now - started)"
            )
        }
        try installAndStart(machine)
        let pid = try #require(Int32(try machine.property("MainPID")), "no MainPID")
        let firstPing = try machine.property("WatchdogTimestampMonotonic")
        try checkStatus(machine)
        try checkScheduling(machine, pid: pid)
        try checkIdentity(machine, pid: pid)
        try checkFileSystem(machine, pid: pid)
        try checkEndpoints(machine)
        try checkWatchdogPings(machine, first: firstPing)
        try checkReload(machine)
        try checkSecurity(machine)
        try checkWatchdogRestart(machine, pid: pid)
        try checkStop(machine)
    }

    /// docs/operations.md's install steps after `make install`; `enable --now` returns only after
    /// READY=1 (a notify unit stays "activating" until then).
    func installAndStart(_ machine: BootedSystemd) throws {
        for step in [
            ["systemd-sysusers"], ["systemd-tmpfiles", "--create", "segue.conf"], ["systemctl", "daemon-reload"],
        ] {
            let result = try machine.run(step)
            #expect(result.status == 0, "\(step.joined(separator: " ")) failed: \(result.output)")
        }
        let start = try machine.run(["systemctl", "enable", "--now", "segued"], timeout: .seconds(60))
        let journal = try machine.journal()
        try #require(
            start.status == 0,
            "systemctl enable --now segued failed (status \(start.status)): \(start.output)\njournal:\n\(journal.suffix(4000))"
        )
        let active = "\(try machine.property("ActiveState"))/\(try machine.property("SubState"))"
        #expect(active == "active/running", "systemctl start returned before READY=1: the unit is \(active)")
        #expect(try machine.journalContains("Ready: commands on"), "no Ready line in the journal")
    }

    func checkStatus(_ machine: BootedSystemd) throws {
        let status = try machine.property("StatusText")
        // The counts, then where it serves (the installed config's endpoints, as bound).
        let parts = status.split(separator: "; ", maxSplits: 1)
        let counts = #/\d+ navigators, \d+ in flight, seq \d+, \d+ commands, \d+ ticks, \d+ subscriptions/#
        #expect(
            parts.count == 2 && parts[0].wholeMatch(of: counts) != nil
                && parts[1].hasPrefix("commands on ipc:///run/segue/command.sock, ")
                && parts[1].contains(", publishing on ipc:///run/segue/publish.sock"),
            "StatusText is '\(status)', not segued's STATUS= line")
    }

    /// docs/operations.md, "systemd", Scheduling: the frame loop (segued's main thread) SCHED_FIFO at
    /// priority 10, every other thread SCHED_OTHER, all at nice -5. A thread started meanwhile (a
    /// checkpoint's worker) inherits the loop's policy until the loop's next once-a-second hand-back.
    func checkScheduling(_ machine: BootedSystemd, pid: Int32) throws {
        var threads: [Int32: (policy: Int, priority: Int, nice: Int)] = [:]
        let settled = try machine.wait(for: .seconds(3)) {
            threads = try schedulingOfThreads(machine, pid: pid)
            return threads.filter { $0.key != pid }.allSatisfy { $0.value.policy == 0 }
        }
        let main = threads[pid]
        #expect(
            main?.policy == 1 && main?.priority == 10,
            "the frame loop is not SCHED_FIFO 10: \(String(describing: main))")
        #expect(settled && threads.count >= 3, "helper threads are not all SCHED_OTHER: \(threads)")
        #expect(threads.values.allSatisfy { $0.nice == -5 }, "not every thread runs at Nice=-5: \(threads)")
        #expect(
            try machine.journalContains("The frame loop keeps its realtime priority"),
            "segued did not log its frame loop's scheduling")
        // docs/operations.md, "Threads": the names hold under the unit's sandbox too.
        let names = try machine.shell("cat /proc/\(pid)/task/*/comm").stdout.split(separator: "\n").map(String.init)
        #expect(
            ["segued", "segue-commit", "segue-signals"].allSatisfy(names.contains),
            "the threads do not carry their names: \(names)")
    }

    /// Policy (field 41), realtime priority (40) and nice (19) of each thread, from its `stat`.
    func schedulingOfThreads(_ machine: BootedSystemd, pid: Int32) throws -> [Int32: (
        policy: Int, priority: Int, nice: Int
    )] {
        let listing = try machine.shell("for t in /proc/\(pid)/task/*; do echo \"${t##*/} $(cat $t/stat)\"; done")
        var threads: [Int32: (policy: Int, priority: Int, nice: Int)] = [:]
        for line in listing.stdout.split(separator: "\n") {
            guard let tid = line.split(separator: " ").first.flatMap({ Int32($0) }), let close = line.lastIndex(of: ")")
            else { continue }
            // fields[0] is field 3, the state.
            let fields = line[line.index(after: close)...].split(separator: " ")
            guard fields.count > 38, let policy = Int(fields[38]), let priority = Int(fields[37]),
                let nice = Int(fields[16])
            else { continue }
            threads[tid] = (policy: policy, priority: priority, nice: nice)
        }
        return threads
    }

    func checkIdentity(_ machine: BootedSystemd, pid: Int32) throws {
        let uid = try machine.run(["id", "-u", "segue"]).stdout.trimmed
        let gid = try machine.run(["id", "-g", "segue"]).stdout.trimmed
        let status = try machine.run(["cat", "/proc/\(pid)/status"]).stdout
        func field(_ name: String) -> String {
            status.split(separator: "\n").first { $0.hasPrefix(name + ":") }.map {
                $0.dropFirst(name.count + 1).split(whereSeparator: \.isWhitespace).joined(separator: " ")
            } ?? "?"
        }
        #expect(
            !uid.isEmpty && field("Uid") == "\(uid) \(uid) \(uid) \(uid)",
            "main PID's Uid is \(field("Uid")), not segue's \(uid)")
        #expect(
            !gid.isEmpty && field("Gid") == "\(gid) \(gid) \(gid) \(gid)",
            "main PID's Gid is \(field("Gid")), not segue's \(gid)")
        #expect(field("CapEff") == "0000000000000000", "CapEff is \(field("CapEff"))")
        #expect(field("CapBnd") == "0000000000000000", "CapBnd is \(field("CapBnd"))")
        #expect(field("NoNewPrivs") == "1", "NoNewPrivs is \(field("NoNewPrivs"))")
    }

    /// Written as `segue`, in the service's own mount namespace.
    func checkFileSystem(_ machine: BootedSystemd, pid: Int32) throws {
        let uid = try machine.run(["id", "-u", "segue"]).stdout.trimmed
        let gid = try machine.run(["id", "-g", "segue"]).stdout.trimmed
        func write(_ path: String) throws -> ChildProcess.Result {
            try machine.run(
                [
                    "nsenter", "-t", String(pid), "-m", "-S", uid, "-G", gid, "--", "/bin/sh", "-c",
                    "echo probe > \(path) && rm \(path)",
                ])
        }
        for directory in ["/etc", "/usr"] {
            let result = try write(directory + "/segue-write-probe")
            #expect(
                result.status != 0 && result.stderr.contains("Read-only file system"),
                "\(directory) is not read-only for the service: status \(result.status), \(result.output)")
        }
        let state = try write("/var/lib/segue/segue-write-probe")
        #expect(state.status == 0, "/var/lib/segue is not writable for the service: \(state.output)")
        // A member of group segue (a local client) reaches the ipc sockets, not the log.
        let member = ["setpriv", "--reuid=65534", "--regid=\(gid)", "--clear-groups"]
        let ping = try machine.run(member + ["env", "SEGUE_ENDPOINT=\(Self.ipcCommand)", "segue", "ping"])
        #expect(ping.status == 0, "a member of group segue cannot reach \(Self.ipcCommand): \(ping.output)")
        let log = try machine.run(member + ["ls", "/var/lib/segue"])
        #expect(
            log.status != 0 && log.stderr.contains("Permission denied"), "the log is open to the group: \(log.output)")
    }

    /// A command through each command endpoint, and an event through each publish endpoint (pyzmq:
    /// `segue --wait` would also find the event in the log, so it cannot show that a subscription works).
    func checkEndpoints(_ machine: BootedSystemd) throws {
        let create = try segue(machine, Self.ipcCommand, ["create", "sd", "Home"])
        #expect(create.status == 0, "create over \(Self.ipcCommand) failed: \(create.output)")
        let push = try segue(machine, Self.tcpCommand, ["push", "sd", "Detail", "--no-animate"])
        #expect(push.status == 0, "push over \(Self.tcpCommand) failed: \(push.output)")
        for (publish, command, screen) in [
            (Self.ipcPublish, Self.ipcCommand, "A"), (Self.tcpPublish, Self.tcpCommand, "B"),
        ] {
            let result = try machine.run(["python3", "-c", Self.subscriber, publish, command, "sd", screen])
            #expect(
                result.status == 0 && result.stdout.contains("\"navigator\""),
                "no event through \(publish) after a push through \(command): \(result.output)")
        }
    }

    /// Subscribes to `hb/` and `event/NAV/`, waits for a heartbeat (subscriptions in place), pushes
    /// SCREEN with the installed `segue`, prints the first event.
    static let subscriber = """
        import os, subprocess, sys, zmq
        publish, command, navigator, screen = sys.argv[1:5]
        feed = zmq.Context().socket(zmq.SUB)
        feed.setsockopt(zmq.RCVTIMEO, 5000)
        for topic in ("hb/", "event/%s/" % navigator):
            feed.setsockopt_string(zmq.SUBSCRIBE, topic)
        feed.connect(publish)
        try:
            while not feed.recv_multipart()[0].startswith(b"hb/"):
                pass
            push = subprocess.run(["segue", "push", navigator, screen, "--no-animate"], capture_output=True,
                                  text=True, timeout=10, env=dict(os.environ, SEGUE_ENDPOINT=command))
            if push.returncode != 0:
                sys.exit("push failed: %d %s" % (push.returncode, push.stderr))
            while True:
                topic, body = feed.recv_multipart()
                if topic.startswith(b"event/"):
                    print(body.decode())
                    break
        except zmq.Again:
            sys.exit("nothing received within 5 s on " + publish)
        """

    func checkWatchdogPings(_ machine: BootedSystemd, first: String) throws {
        #expect(try machine.property("WatchdogUSec") == "10s", "WatchdogSec= is not 10 s")
        let moved = try machine.wait(for: .seconds(8)) { try machine.property("WatchdogTimestampMonotonic") != first }
        #expect(moved, "WATCHDOG=1 did not move the watchdog timestamp in 8 s (still \(first))")
    }

    /// A reload applies the file; a file segued would refuse fails `systemctl reload` itself (the
    /// unit's `--check-config`), and the daemon serves on as it was, unsignalled.
    func checkReload(_ machine: BootedSystemd) throws {
        let reload = try machine.run(["systemctl", "reload", "segued"])
        #expect(reload.status == 0, "systemctl reload failed: \(reload.output)")
        let logged = try machine.wait(for: .seconds(5)) {
            try machine.journalContains("Reloaded /etc/segue/segued.json")
        }
        #expect(logged, "the reload was not logged")
        let pid = try machine.property("MainPID")
        let config = "/etc/segue/segued.json"
        // Rewritten in place, so the file keeps its group (segue) and mode.
        try machine.shell("cat \(config) > /root/segued.json.good && printf '{\"logLevel\": \"loud\"}' > \(config)")
        let refused = try machine.run(["systemctl", "reload", "segued"])
        try machine.shell("cat /root/segued.json.good > \(config)")
        #expect(refused.status != 0, "systemctl reload of an invalid file succeeded: \(refused.output)")
        #expect(
            try machine.journalContains("at $.logLevel: must be one of"), "the check's reason is not in the journal")
        #expect(
            !(try machine.journalContains("was not reloaded, the running configuration stays")),
            "segued was signalled with the invalid file")
        let state = "\(try machine.property("ActiveState"))/\(try machine.property("SubState"))"
        let pidAfter = try machine.property("MainPID")
        #expect(state == "active/running" && pidAfter == pid, "after the refusal: \(state), pid \(pid) → \(pidAfter)")
        let again = try machine.run(["systemctl", "reload", "segued"])
        #expect(
            again.status == 0,
            "systemctl reload after the file was put back failed: \(again.output)\n\((try? machine.journal())?.suffix(2000) ?? "")"
        )
    }

    func checkSecurity(_ machine: BootedSystemd) throws {
        let analysis = try machine.run(["systemd-analyze", "security", "segued", "--no-pager"])
        let level = analysis.stdout.firstMatch(of: #/Overall exposure level for segued.service: (\d+\.\d+)/#)
            .flatMap { Double($0.1) }
        #expect(
            level.map { $0 <= 2.0 } == true, "exposure \(String(describing: level)), above 2.0:\n\(analysis.output)")
    }
}
