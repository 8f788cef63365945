import Foundation
import SegueClient
import SegueCore
import Synchronization
import Testing

/// The real `segue` against the real `segued`: each subcommand's happy path, and its failure status.
@Suite(.ownThreads, .serialized) struct CliCommandTests {
    func json(_ text: String) throws -> JSON { try JSON.parse(text.trimmingCharacters(in: .whitespacesAndNewlines)) }

    @Test func navigationCommandsAndTheirFailures() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        #expect(try Cli.run(["create", "main", "Home", "--container", "390x844"], daemon: d).status == 0)
        let dup = try Cli.run(["create", "main", "Home"], daemon: d)
        #expect(dup.status == 1)
        #expect(dup.stderr.hasPrefix("error: navigator_exists: "))

        let push = try Cli.run(
            ["push", "main", "Detail", "--param", "id=42", "--param", "title=Hi", "--json", "--wait"], daemon: d)
        #expect(push.status == 0, "\(push.stderr)")
        let lines = push.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(try json(lines[0])["transition"] == 1)
        #expect(try json(lines[1])["type"] == "transition.completed")

        let state = try json(try Cli.run(["state", "main", "--json"], daemon: d).stdout)
        #expect(state["stack"]?.arrayValue?.last?["params"] == ["id": 42, "title": "Hi"])

        let first = try Cli.run(["push", "main", "Settings", "--no-animate", "--id", "tap-1", "--json"], daemon: d)
        #expect(try json(first.stdout)["revision"] == 5)
        let retried = try Cli.run(["push", "main", "Settings", "--no-animate", "--id", "tap-1", "--json"], daemon: d)
        #expect(retried.stdout == first.stdout, "a repeated id gets the original reply and pushes once")
        #expect(try json(try Cli.run(["state", "main", "--json"], daemon: d).stdout)["revision"] == 5)
        let conflict = try Cli.run(["pop", "main", "--expect", "3"], daemon: d)
        #expect(conflict.status == 1)
        #expect(conflict.stderr.hasPrefix("error: conflict: "))
        #expect(try Cli.run(["pop-to", "main", "s2", "--no-animate"], daemon: d).status == 0)
        #expect(try Cli.run(["set", "main", "s1", "Mail", "Thread", "--no-animate"], daemon: d).status == 0)
        #expect(
            try Cli.run(
                ["present", "main", "Compose", "--style", "cover", "--edge", "bottom", "--duration", "50ms", "--wait"],
                daemon: d
            ).status == 0)
        #expect(
            try Cli.run(["dismiss", "main", "--curve", "bezier:0.2,0,0,1", "--duration", "0.05", "--wait"], daemon: d)
                .status == 0)
        #expect(
            try Cli.run(["pop-to-root", "main", "--curve", "spring-response:0.2,1", "--wait"], daemon: d).status == 0)
        let root = try Cli.run(["pop", "main"], daemon: d)
        #expect(root.status == 1)
        #expect(root.stderr.hasPrefix("error: cannot_pop_root: "))
        let badCurve = try Cli.run(["push", "main", "X", "--curve", "bezier:2,0,0,1"], daemon: d)
        #expect(badCurve.status == 64, "checked before sending, by the daemon's rule: \(badCurve.stderr)")
        #expect(try Cli.run(["close", "main"], daemon: d).status == 0)
        #expect(try Cli.run(["close", "main"], daemon: d).status == 1)
    }

    /// `--timeout` bounds each answer the daemon owes, not how long a transition may take: a 2.5 s
    /// push with a 400 ms timeout is waited out, not failed at some multiple of the timeout (400 ms:
    /// the push's own reply must still come within it on a loaded machine). And an
    /// empty `SEGUE_PUBLISH_ENDPOINT` counts as unset rather than being passed to zmq_connect.
    @Test func waitOutlastsTheTimeoutAndEmptyVariablesAreUnset() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        try Cli.run(["create", "main", "Home"], daemon: d)
        let push = try Cli.run(
            ["push", "main", "Slow", "--duration", "2.5s", "--timeout", "400ms", "--wait"], daemon: d)
        #expect(push.status == 0, "\(push.stderr)")
        #expect(push.stdout.hasSuffix("main: transition 1 completed\n"))

        // The default publish endpoint is not this daemon's: --wait then learns the end from the log.
        let empty = try Cli.run(
            ["pop", "main", "--duration", "0.1", "--wait", "--endpoint", d.commandEndpoint, "--timeout", "0.5"],
            environment: ["SEGUE_ENDPOINT": "", "SEGUE_PUBLISH_ENDPOINT": ""])
        #expect(empty.status == 0, "\(empty.stderr)")
        #expect(empty.stdout.hasSuffix("main: transition 2 completed\n"))
        let unset = try Cli.run(["ping", "--timeout", "200ms"], environment: ["SEGUE_ENDPOINT": ""])
        #expect(unset.status != 64, "an empty SEGUE_ENDPOINT is the default endpoint, not a bad --endpoint")
    }

    @Test func waitExitsTwoWhenTheTransitionIsCancelled() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        try Cli.run(["create", "main", "Home"], daemon: d)
        try Cli.run(["push", "main", "Detail", "--no-animate"], daemon: d)
        // A pop that a gesture interrupts and cancels.
        let waiter = Process()
        waiter.executableURL = URL(fileURLWithPath: Cli.binary)
        waiter.arguments = [
            "pop", "main", "--duration", "2", "--wait", "--endpoint", d.commandEndpoint, "--publish-endpoint",
            d.publishEndpoint,
        ]
        waiter.standardOutput = FileHandle.nullDevice
        try waiter.run()
        var began: CliResult?
        for _ in 0..<100 where began?.status != 0 {
            usleep(20_000)
            began = try Cli.run(["gesture", "begin", "main", "--owner", "me"], daemon: d)
        }
        #expect(began?.status == 0)
        // Where the interrupt caught it, which `update` goes on from.
        let caught = try #require(began?.stdout)
        #expect(
            caught.wholeMatch(of: #/main: interrupted transition \d+ at 0\.\d{3} \(revision \d+\)\n/#) != nil,
            "\(caught)")
        #expect(try Cli.run(["gesture", "update", "main", "--percent", "0.2", "--owner", "me"], daemon: d).status == 0)
        let notOwner = try Cli.run(["gesture", "cancel", "main"], daemon: d)
        #expect(notOwner.status == 1)
        #expect(notOwner.stderr.hasPrefix("error: not_owner: "))
        #expect(
            try Cli.run(["gesture", "cancel", "main", "--owner", "me", "--completion-speed", "4"], daemon: d).status
                == 0)
        waiter.waitUntilExit()
        #expect(waiter.terminationStatus == 2)
    }

    @Test func gestureStepsAndSwipe() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        try Cli.run(["create", "main", "Home"], daemon: d)
        try Cli.run(["push", "main", "Detail", "--no-animate"], daemon: d)
        let begin = try Cli.run(
            ["gesture", "begin", "main", "--operation", "pop", "--owner", "pan", "--json"], daemon: d)
        #expect(begin.status == 0, "\(begin.stderr)")
        let update = try json(
            try Cli.run(["gesture", "update", "main", "--percent", "1.5", "--owner", "pan", "--json"], daemon: d).stdout
        )
        #expect(update["percent"] == 1.0)
        // --wait returns once the cancelling animation is over (exit 2: cancelled), so the swipe below
        // can begin at once instead of meeting `busy`.
        let end = try Cli.run(
            ["gesture", "end", "main", "--percent", "0.1", "--velocity", "0", "--owner", "pan", "--wait"], daemon: d)
        #expect(end.stdout == "cancel\nmain: transition 2 cancelled\n", "\(end.stderr)")
        #expect(end.status == 2)
        let noTransition = try Cli.run(["gesture", "finish", "main"], daemon: d)
        #expect(noTransition.status == 1)

        let swipe = try Cli.run(
            ["swipe", "main", "pop", "--to", "0.8", "--over", "0.1s", "--then", "end", "--wait"], daemon: d)
        #expect(swipe.status == 0, "\(swipe.stderr)")
        #expect(swipe.stdout == "finish\nmain: transition 3 completed\n")
        let state = try json(try Cli.run(["state", "main", "--json"], daemon: d).stdout)
        #expect(state["stack"]?.arrayValue?.count == 1)
        #expect(state["transition"] == .null)
        let history = try Cli.run(["log", "--navigator", "main", "--json"], daemon: d).stdout.split(separator: "\n")
        let updates = try history.filter { try JSON.parse(String($0))["type"] == "interaction.updated" }
        #expect(updates.count >= 6, "one update per frame over 0.1 s at 60 Hz, plus the step-by-step one")

        try Cli.run(["push", "main", "Detail", "--no-animate"], daemon: d)
        #expect(try Cli.run(["gesture", "begin", "main", "--operation", "pop"], daemon: d).status == 0)
        let finish = try Cli.run(
            ["gesture", "finish", "main", "--completion-speed", "3", "--wait", "--json"], daemon: d)
        #expect(finish.status == 0, "\(finish.stderr)")
        let lines = finish.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(try json(lines.last ?? "")["type"] == "transition.completed")
        #expect(try json(lines.last ?? "")["data"]?["transition"] == 5)
    }

    /// segued restarts in the middle of a swipe: recovery cancels the interactive transition (the
    /// gesture is gone), and the swipe's next step meets `no_transition`. The swipe reports how its
    /// transition ended, as `--wait` does, and exits 2 (cancelled), not 1 for the step's refusal.
    @Test(arguments: [false, true])
    func aSwipeCutShortByARestartReportsTheRecoveryCancel(wait: Bool) throws {
        let first = try DaemonProcess()
        try Cli.run(["create", "main", "Home"], daemon: first)
        try Cli.run(["push", "main", "Detail", "--no-animate"], daemon: first)
        let swipe = try CliBackground(
            ["swipe", "main", "pop", "--over", "3s", "--endpoint", first.commandEndpoint, "--publish-endpoint"]
                + [first.publishEndpoint] + (wait ? ["--wait"] : []))
        // Begun and updating: then the daemon goes away and comes back.
        var updating = false
        for _ in 0..<200 where !updating {
            usleep(10_000)
            updating =
                (try? Cli.run(["state", "main", "--json"], daemon: first).stdout.contains("\"interactive\""))
                ?? false
        }
        #expect(updating)
        #expect(first.stop(signal: SIGKILL) == 128 + SIGKILL)
        let second = try first.restarted()
        defer { second.stop() }
        swipe.finish(timeout: .seconds(15))
        #expect(swipe.process.terminationReason == .exit && swipe.process.terminationStatus == 2, "\(swipe.stderr)")
        #expect(swipe.stdout == "main: transition 2 cancelled\n")
        #expect(swipe.stderr == "segue swipe: transition 2 was cancelled (recovery) before the gesture ended.\n")
    }

    /// A swipe stopped mid-gesture lifts the finger as a cancelled touch does: the transition is
    /// cancelled at once, not left interactive (every command `busy`) until its timeout.
    @Test(arguments: [SIGINT, SIGTERM])
    func aSwipeStoppedBySignalCancelsItsTransition(signal: Int32) throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        try Cli.run(["create", "main", "Home"], daemon: d)
        try Cli.run(["push", "main", "Detail", "--no-animate"], daemon: d)
        let swipe = try CliBackground(
            [
                "swipe", "main", "pop", "--to", "0.9", "--over", "10s", "--then", "finish", "--endpoint",
                d.commandEndpoint,
            ])
        var updating = false
        for _ in 0..<200 where !updating {
            usleep(10_000)
            updating =
                (try? Cli.run(["state", "main", "--json"], daemon: d).stdout.contains("\"interactive\"")) ?? false
        }
        #expect(updating)
        kill(swipe.process.processIdentifier, signal)
        swipe.finish()
        // It dies of the signal, as a shell loop around it expects to stop on Ctrl-C.
        #expect(swipe.process.terminationReason == .uncaughtSignal, "\(swipe.stderr)")
        #expect(swipe.process.terminationStatus == signal, "\(swipe.stderr)")
        #expect(swipe.stderr == "segue swipe: interrupted; cancelled transition 2 of main.\n")
        let log = try Cli.run(["log", "--type", "transition.cancelling", "--json"], daemon: d).stdout
        let cancelling = log.split(separator: "\n").compactMap { try? json(String($0)) }.first {
            $0["type"] == "transition.cancelling"
        }
        #expect(cancelling?["data"]?["reason"] == "requested", "\(log)")
    }

    @Test func readCommandsAndTimeouts() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        let ping = try json(try Cli.run(["ping", "--json"], daemon: d).stdout)
        #expect(ping["frameRate"] == 60)
        try Cli.run(["create", "a", "Home"], daemon: d)
        try Cli.run(["create", "b", "Home", "--busy", "queue"], daemon: d)
        let ls = try Cli.run(["ls"], daemon: d)
        #expect(ls.stdout.hasPrefix("a\topen\trevision 1\tdepth 1\ttop Home[s1]\nb\topen"))
        #expect(try Cli.run(["state", "a", "--at", "1"], daemon: d).stdout.contains("stack: Home[s1]"))
        #expect(try Cli.run(["state", "zzz"], daemon: d).status == 1)
        let log = try Cli.run(["log", "--after", "1", "--limit", "1", "--json"], daemon: d)
        #expect(try json(log.stdout)["seq"] == 2)
        let stats = try json(try Cli.run(["stats", "--json"], daemon: d).stdout)
        #expect(stats["events"] == 2)
        // As text, one dotted name per counter at any depth, strings unquoted.
        let statsText = try Cli.run(["stats"], daemon: d).stdout
        #expect(statsText.contains("\nstore.durability\tfull\n"), "\(statsText)")
        #expect(statsText.contains("\nstore.walCheckpoints.background\t0\n"), "\(statsText)")

        let silent = "tcp://127.0.0.1:\(DaemonProcess.freePort())"
        let refused = try Cli.run(["ping", "--endpoint", silent, "--timeout", "0.3"])
        #expect(refused.status == 3)
        #expect(refused.stderr.hasPrefix("error: could not connect to \(silent): connection refused"))
        let bad = try Cli.run(["ping", "--endpoint", "nonsense"])
        #expect(bad.status == 64)
        // Pings a peer never answers fail the count (3), in the summary object under --json.
        let (busy, port) = DataDirFootprintTests.busyPort()
        defer { close(busy) }
        let unanswered = try Cli.run([
            "ping", "--endpoint", "tcp://127.0.0.1:\(port)", "--count", "2", "--interval", "10ms", "--timeout", "200ms",
            "--json",
        ])
        #expect(unanswered.status == 3, "\(unanswered.stderr)")
        let summary = try json(String(unanswered.stdout.split(separator: "\n").last ?? ""))
        #expect(summary["ok"] == false && summary["sent"] == 2 && summary["received"] == 0, "\(unanswered.stdout)")
        #expect(summary["error"]?["code"] == "timeout", "\(unanswered.stdout)")
        #expect(
            unanswered.stderr.contains("error: No reply to 2 of 2 pings from tcp://127.0.0.1:\(port)."),
            "\(unanswered.stderr)")

        // A list of endpoints none of which listens is said as soon as each refused, naming them all;
        // with one that answers, the output names that one.
        let other = "tcp://127.0.0.1:\(DaemonProcess.freePort())"
        let started = ContinuousClock.now
        let noneListens = try Cli.run(["ping", "--json"], environment: ["SEGUE_ENDPOINT": "\(silent),\(other)"])
        #expect(ContinuousClock.now - started < .seconds(2))
        #expect(noneListens.status == 3)
        #expect(
            try json(noneListens.stdout)["error"]
                == [
                    "code": "unreachable",
                    "message": .string(
                        "could not connect to \(silent), \(other): connection refused (is segued running there?)"),
                ])
        let answered = try Cli.run(["ping"], environment: ["SEGUE_ENDPOINT": "\(silent),\(d.commandEndpoint)"])
        #expect(answered.stdout.hasPrefix("segued "), "\(answered.stdout)")
        #expect(answered.stdout.contains(" at \(d.commandEndpoint): "), "\(answered.stdout)")
    }

    @Test func logFollowPrintsNewEvents() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        try Cli.run(["create", "main", "Home"], daemon: d)
        let follower = Process()
        follower.executableURL = URL(fileURLWithPath: Cli.binary)
        follower.arguments = [
            "log", "--follow", "--limit", "4", "--json", "--endpoint", d.commandEndpoint, "--publish-endpoint",
            d.publishEndpoint,
        ]
        let out = Pipe()
        follower.standardOutput = out
        try follower.run()
        usleep(300_000)
        try Cli.run(["push", "main", "Detail", "--no-animate"], daemon: d)
        try Cli.run(["push", "main", "More", "--no-animate"], daemon: d)
        let data = out.fileHandleForReading.readDataToEndOfFile()
        follower.waitUntilExit()
        let seqs = try String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            try JSON.parse(String($0))["seq"]
        }
        #expect(seqs == [1, 2, 3, 4])
    }

    /// `--follow --after N` prints the log after N (navigators first seen there start at the event's
    /// revision, not at a snapshot of today's state that would cover them), then what comes.
    @Test(arguments: [0, 3, 4, 6])
    func logFollowAfterASeqPrintsTheBacklogFirst(after: Int) throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        for name in ["a", "b"] { try Cli.run(["create", name, "Home"], daemon: d) }
        for name in ["a", "b"] { try Cli.run(["push", name, "Detail", "--no-animate"], daemon: d) }
        let follower = Process()
        follower.executableURL = URL(fileURLWithPath: Cli.binary)
        follower.arguments = [
            "log", "--follow", "--after", String(after), "--limit", String(8 - after), "--json", "--endpoint",
            d.commandEndpoint, "--publish-endpoint", d.publishEndpoint,
        ]
        let out = Pipe()
        follower.standardOutput = out
        try follower.run()
        // A follower short of its limit would wait for ever: what it printed by then is the failure.
        DispatchQueue.global().asyncAfter(deadline: .now() + 20) { if follower.isRunning { follower.terminate() } }
        usleep(300_000)
        try Cli.run(["push", "a", "More", "--no-animate"], daemon: d)
        let data = out.fileHandleForReading.readDataToEndOfFile()
        follower.waitUntilExit()
        let seqs = try String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            try JSON.parse(String($0))["seq"]?.int64Value
        }
        #expect(seqs == ((after + 1)...8).map { Int64($0) })
    }

    /// Events published while the follower could not receive them (stopped here, across a daemon
    /// restart, so its subscription is not in place) and then nothing after them: the next
    /// heartbeat shows the log moved, and they are read from it.
    @Test(arguments: [[], ["--navigator", "main"]])
    func logFollowFindsEventsMissedAtTheEnd(filter: [String]) throws {
        let first = try DaemonProcess()
        try Cli.run(["create", "main", "Home"], daemon: first)
        let follower = try CliBackground(
            ["log", "--follow", "--limit", "3", "--json", "--endpoint", first.commandEndpoint, "--publish-endpoint"]
                + [first.publishEndpoint] + filter)
        // The backlog printed, it waits on its subscription.
        #expect(follower.wait(for: #""seq":1"#))
        kill(follower.process.processIdentifier, SIGSTOP)
        #expect(first.stop() == 0)
        let second = try first.restarted()
        defer { second.stop() }
        try Cli.run(["push", "main", "Detail", "--no-animate"], daemon: second)
        kill(follower.process.processIdentifier, SIGCONT)
        follower.finish(timeout: .seconds(8))
        let seqs = try follower.stdout.split(separator: "\n").map { try JSON.parse(String($0))["seq"] }
        #expect(seqs == [1, 2, 3])
        #expect(follower.process.terminationReason == .exit && follower.process.terminationStatus == 0)
    }

    /// segued stopped (SIGTERM) for longer than the follower's `--timeout`: its last heartbeat is
    /// beyond what the follower checked (heartbeats are 30 s apart here, so it is the first since the
    /// push), and the check it asks for gets no answer. The follower keeps waiting, and reads what
    /// the restarted daemon logs.
    @Test(arguments: [[], ["--navigator", "main"]])
    func logFollowOutlivesADaemonStoppedLongerThanItsTimeout(filter: [String]) throws {
        let config = try DaemonProcess.configFile(#"{"heartbeatSeconds": 30}"#)
        let first = try DaemonProcess(arguments: config)
        try Cli.run(["create", "main", "Home"], daemon: first)
        let follower = try CliBackground(
            ["log", "--follow", "--limit", "5", "--timeout", "300ms", "--endpoint", first.commandEndpoint]
                + ["--publish-endpoint", first.publishEndpoint] + filter)
        #expect(follower.wait(for: "1\tmain#1\t"))
        try Cli.run(["push", "main", "Detail", "--no-animate"], daemon: first)
        #expect(follower.wait(for: "3\tmain#3\t"))
        #expect(first.stop() == 0)
        usleep(1_500_000)
        #expect(follower.process.isRunning, "\(follower.stderr)")
        // Heartbeats 0.2 s apart now: events published before the subscription reconnected show soon.
        let second = try first.restarted(arguments: try DaemonProcess.configFile(#"{"heartbeatSeconds": 0.2}"#))
        defer { second.stop() }
        try Cli.run(["pop", "main", "--no-animate"], daemon: second)
        follower.finish(timeout: .seconds(8))
        let seqs = follower.stdout.split(separator: "\n").map { $0.prefix { $0 != "\t" } }
        #expect(seqs == ["1", "2", "3", "4", "5"], "\(follower.stdout)\n\(follower.stderr)")
        #expect(follower.process.terminationReason == .exit && follower.process.terminationStatus == 0)
    }

    /// A restore scenario (`CatchUpRestoreTests.Scenario`: `create main Home`, a backup, a restart)
    /// after a push, and `log --follow` (plus `arguments`) once it printed the push's events.
    func followingAfterAPush(_ arguments: [String] = []) throws -> (CatchUpRestoreTests.Scenario, CliBackground) {
        let scenario = try CatchUpRestoreTests.Scenario()
        try scenario.push("Detail")
        let daemon = scenario.daemon
        let follower = try CliBackground(
            ["log", "--follow", "--endpoint", daemon.commandEndpoint, "--publish-endpoint", daemon.publishEndpoint]
                + arguments)
        #expect(follower.wait(for: "3\tmain#3\t"))
        return (scenario, follower)
    }

    /// A daemon restarted on an older copy of its log ends before what was printed: `log --follow`
    /// stops with status 1 and says so, rather than print the new log's events under seqs it
    /// already printed for others (or skip them as duplicates).
    @Test(.sqliteOnly) func logFollowStopsWhenTheLogWasRestoredToAnOlderCopy() throws {
        let (scenario, follower) = try followingAfterAPush()
        let third = try scenario.restore()
        defer { third.stop() }
        follower.finish(timeout: .seconds(8))
        let stderr = follower.stderr
        #expect(follower.stdout.split(separator: "\n").count == 3, "\(follower.stdout)")
        #expect(follower.process.terminationReason == .exit && follower.process.terminationStatus == 1)
        #expect(
            stderr
                == "error: the daemon's log now ends at seq 1, before seq 3 already printed (restored from a backup?); "
                + "run segue log again to read it.\n")
    }

    /// A follower far behind (stopped here) while segued restarts on an older copy of its log that
    /// then grows past what was printed: seqs cannot tell, the events differ. The new daemon instance
    /// in the heartbeats makes it compare what it printed; it stops with status 1 and says so.
    @Test(.sqliteOnly, arguments: [[], ["--navigator", "main"]])
    func logFollowStopsWhenARestoredLogGrewPastWhatWasPrinted(filter: [String]) throws {
        let (scenario, follower) = try followingAfterAPush(filter)
        kill(follower.process.processIdentifier, SIGSTOP)
        let third = try scenario.restore()
        defer { third.stop() }
        try scenario.push("A", "B", on: third)
        kill(follower.process.processIdentifier, SIGCONT)
        follower.finish(timeout: .seconds(8))
        #expect(follower.process.terminationReason == .exit && follower.process.terminationStatus == 1)
        #expect(
            follower.stderr
                == "error: the daemon's log no longer holds the events printed up to seq 3 (restarted on a restored "
                + "older copy?); run segue log again to read it.\n")
        #expect(follower.stdout.split(separator: "\n").count == 3, "\(follower.stdout)")
    }

    /// A piped `watch` across a restore to an older copy of the log: after starting over, a named
    /// navigator the copy does not hold gets its "not created yet" line, as at start, so the last
    /// stack line printed for it does not stand for a navigator that is gone; one the copy holds
    /// gets its stack as the copy has it.
    @Test(.sqliteOnly) func pipedWatchSaysWhatTheRestoredLogLacks() throws {
        let scenario = try CatchUpRestoreTests.Scenario()
        let daemon = scenario.daemon
        try SegueClient(endpoint: daemon.commandEndpoint).create("late", root: ScreenSpec(name: "Home"))
        try scenario.push("Detail")
        let watcher = try CliBackground(
            [
                "watch", "main", "late", "--endpoint", daemon.commandEndpoint, "--publish-endpoint",
                daemon.publishEndpoint,
            ])
        #expect(watcher.wait(for: "late: stack Home[s1]\n"))
        let third = try scenario.restore()
        defer { third.stop() }
        #expect(watcher.wait(for: "starting over", onStderr: true), "\(watcher.stderr)")
        #expect(watcher.wait { $0.hasSuffix("late: not created yet; waiting for it\nmain: stack Home[s1]\n") })
        watcher.finish(timeout: .zero)
        #expect(
            watcher.stdout
                == "main: stack Home[s1] > Detail[s2]\nlate: stack Home[s1]\n"
                + "late: not created yet; waiting for it\nmain: stack Home[s1]\n")
    }

    /// Heartbeats every 50 ms while the log moves: some wait in the follower's queue behind the
    /// replies of its backlog and gap reads, below seqs already printed. No restore (`ping` says
    /// so): it prints every event once, in order, and exits 0 at its limit.
    @Test(arguments: [[], ["--navigator", "main"]])
    func logFollowTakesQueuedHeartbeatsForNoRestore(filter: [String]) throws {
        let d = try DaemonProcess.configured(#"{"heartbeatSeconds": 0.05}"#)
        defer { d.stop() }
        try Cli.run(["create", "main", "Home"], daemon: d)
        let stop = Atomic<Bool>(false)
        let load = Thread {
            guard let client = try? TestClient(endpoint: d.commandEndpoint) else { return }
            var push = true
            while !stop.load(ordering: .relaxed) {
                let body: JSON =
                    push
                    ? ["cmd": "push", "navigator": "main", "screen": "A", "animated": false]
                    : ["cmd": "pop", "navigator": "main", "animated": false]
                _ = try? client.call(body, timeout: .seconds(2))
                push.toggle()
            }
        }
        load.start()
        defer { stop.store(true, ordering: .relaxed) }
        usleep(500_000)
        let follower = Process()
        follower.executableURL = URL(fileURLWithPath: Cli.binary)
        follower.arguments =
            ["log", "--follow", "--limit", "1500", "--endpoint", d.commandEndpoint, "--publish-endpoint"]
            + [d.publishEndpoint] + filter
        let out = Pipe()
        let err = Pipe()
        follower.standardOutput = out
        follower.standardError = err
        try follower.run()
        let killer = Thread {
            usleep(20_000_000)
            if follower.isRunning { follower.terminate() }
        }
        killer.start()
        let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        follower.waitUntilExit()
        #expect(stderr == "")
        #expect(follower.terminationReason == .exit && follower.terminationStatus == 0)
        let seqs = printed.split(separator: "\n").compactMap { Int($0.prefix { $0 != "\t" }) }
        #expect(seqs.count == 1500)
        #expect(seqs == Array(1...seqs.count), "every event once, in order")
    }

    /// `log --navigator` for a navigator that does not exist prints no events (scripts see the same
    /// empty output) but says so on stderr, so that a typo is not mistaken for a quiet navigator.
    @Test func logOfANavigatorThatDoesNotExistSaysSo() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        try Cli.run(["create", "main", "Home"], daemon: d)
        let typo = try Cli.run(["log", "--navigator", "mian"], daemon: d)
        #expect(typo.status == 0)
        #expect(typo.stdout == "")
        #expect(typo.stderr == "segue log: there is no navigator mian.\n")
        let real = try Cli.run(["log", "--navigator", "main"], daemon: d)
        #expect(real.stderr == "")
        #expect(real.stdout.split(separator: "\n").count == 1)
    }

    /// `log --follow` on a publish endpoint where no segued publishes: no heartbeat for three of the
    /// daemon's intervals (`ping`'s `heartbeatSeconds`, 1 s) is said once on stderr, instead of a
    /// silent wait that looks like a quiet log. It keeps waiting.
    @Test func logFollowSaysWhenNoHeartbeatArrives() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        try Cli.run(["create", "main", "Home"], daemon: d)
        let nowhere = "tcp://127.0.0.1:\(DaemonProcess.freePort())"
        let follower = try CliBackground(
            ["log", "--follow", "--endpoint", d.commandEndpoint, "--publish-endpoint", nowhere])
        let notice =
            "segue log: no heartbeat from segued at \(nowhere) for over 3 s (daemon stopped, link down, or not its "
            + "publish endpoint); still waiting.\n"
        #expect(follower.wait(for: notice, onStderr: true), "\(follower.stderr)")
        #expect(follower.process.isRunning)
        follower.process.terminate()
        follower.finish()
        #expect(follower.stdout.split(separator: "\n").count == 1)
        #expect(follower.stderr == notice)
    }

    @Test func storeCommandsOnADataDir() throws {
        let d = try DaemonProcess()
        try Cli.run(["create", "main", "Home"], daemon: d)
        try Cli.run(["push", "main", "Detail", "--no-animate"], daemon: d)
        #expect(d.stop() == 0)
        let export = d.dataDir + "/log.jsonl"
        #expect(try Cli.run(["export", "--data-dir", d.logLocation, "-o", export]).status == 0)
        let stdout = try Cli.run(["export", "--data-dir", d.logLocation]).stdout
        #expect(stdout == (try String(contentsOfFile: export, encoding: .utf8)))
        #expect(stdout.split(separator: "\n").count == 3)
        #expect(try Cli.run(["verify", "--data-dir", d.logLocation]).stdout.contains("ok, 3 events, 1 navigator."))
        #expect(try Cli.run(["verify", export]).status == 0)

        let fresh = DaemonProcess.temporaryDirectory()
        #expect(try Cli.run(["import", "--data-dir", fresh, export]).status == 0)
        #expect(try Cli.run(["export", "--data-dir", fresh]).stdout == stdout)
        let again = try Cli.run(["import", "--data-dir", fresh, export])
        #expect(again.status == 1, "an import must continue the log")

        var lines = stdout.split(separator: "\n").map(String.init)
        lines.remove(at: 1)
        let gap = d.dataDir + "/gap.jsonl"
        try (lines.joined(separator: "\n") + "\n").write(toFile: gap, atomically: true, encoding: .utf8)
        let broken = try Cli.run(["verify", gap])
        #expect(broken.status == 1)
        #expect(broken.stderr.contains("Event seq 3 does not follow 1; the log has a gap."))
        #expect(try Cli.run(["verify", "--data-dir", "/nonexistent"]).status == 74)

        // A hand edit that folds without complaint into a stack no command made: caught.
        let ghost = d.dataDir + "/ghost.jsonl"
        let edited = stdout.replacingOccurrences(
            of: #""stack":[{"id":"s1","name":"Home"},{"id":"s2","name":"Detail"}]"#,
            with: #""stack":[{"id":"s1","name":"Home"},{"id":"s2","name":"Detail"},{"id":"s99","name":"Ghost"}]"#)
        #expect(edited != stdout)
        try edited.write(toFile: ghost, atomically: true, encoding: .utf8)
        let haunted = try Cli.run(["verify", ghost])
        #expect(haunted.status == 1)
        #expect(
            haunted.stderr.contains("shows screen s99 (Ghost), neither on the navigator nor a new one"),
            "\(haunted.stderr)")

        // An import is checked like `verify` before anything is written: a file a daemon could not
        // rebuild from (an event type nobody knows, here) leaves the data dir as it was.
        let first = d.dataDir + "/first.jsonl"
        let rest = d.dataDir + "/rest.jsonl"
        let all = stdout.split(separator: "\n").map(String.init)
        try (all[0] + "\n").write(toFile: first, atomically: true, encoding: .utf8)
        let bogus = all[1...].map { $0.replacingOccurrences(of: "transition.started", with: "bogus.event") }
        try (bogus.joined(separator: "\n") + "\n").write(toFile: rest, atomically: true, encoding: .utf8)
        let target = DaemonProcess.temporaryDirectory()
        #expect(try Cli.run(["import", "--data-dir", target, first]).status == 0)
        let refused = try Cli.run(["import", "--data-dir", target, rest])
        #expect(refused.status == 1)
        let unknownType =
            "\(rest) line 1 (seq 2): Unknown event type \"bogus.event\"; was it exported by a newer segue? "
            + "Nothing was imported."
        #expect(refused.stderr == unknownType + "\n")
        #expect(try Cli.run(["export", "--data-dir", target]).stdout == all[0] + "\n")
        #expect(try Cli.run(["verify", rest]).status == 1)

        // Not JSON is a problem verify found (1, with --json's object); a missing file is 74, and an
        // import of it creates no data dir.
        let truncated = d.dataDir + "/truncated.jsonl"
        try String(stdout.prefix(40)).write(toFile: truncated, atomically: true, encoding: .utf8)
        let notJSON = try Cli.run(["verify", truncated, "--json"])
        #expect(notJSON.status == 1)
        #expect(try JSON.parse(notJSON.stdout)["ok"] == false)
        #expect(try JSON.parse(notJSON.stdout)["error"]?["code"] == "invalid_log")
        #expect(try JSON.parse(notJSON.stdout)["error"]?["message"]?.stringValue?.isEmpty == false)
        let refusedJSON = try JSON.parse(try Cli.run(["import", "--data-dir", target, rest, "--json"]).stdout)
        #expect(
            refusedJSON["error"]
                == [
                    "code": "invalid_log",
                    "message": .string(unknownType),
                ]
        )
        let nowhere = DaemonProcess.temporaryDirectory() + "/never"
        #expect(try Cli.run(["import", "--data-dir", nowhere, d.dataDir + "/missing.jsonl"]).status == 74)
        #expect(!FileManager.default.fileExists(atPath: nowhere))
        // A data dir given as the file is a log to export first, not a file import can read: 74 and
        // io, with the way there, before anything is opened.
        let dirAsFile = try Cli.run(["import", "--data-dir", nowhere, target, "--json"])
        #expect(dirAsFile.status == 74)
        #expect(try JSON.parse(dirAsFile.stdout)["error"]?["code"] == "io", "\(dirAsFile.stdout)")
        #expect(dirAsFile.stderr.contains("Export it first (segue export --data-dir \(target)"), "\(dirAsFile.stderr)")
        #expect(!FileManager.default.fileExists(atPath: nowhere))
        // A log that is not there is said alike by every command that reads one (docs/cli.md).
        let missing: [([String], String)] = [
            (["export", "--data-dir", nowhere], "a data dir (segued's --data-dir) or a postgresql:// URL."),
            (["verify", "--data-dir", nowhere], "a data dir (segued's --data-dir) or a postgresql:// URL."),
            (["replay", nowhere], "a data dir (segued's --data-dir), a postgresql:// URL or a JSON Lines export."),
            (["verify", nowhere], "a data dir (segued's --data-dir), a postgresql:// URL or a JSON Lines export."),
            (["import", "--data-dir", target, nowhere], "a JSON Lines export (segue export -o FILE)."),
        ]
        for (arguments, what) in missing {
            let run = try Cli.run(arguments)
            #expect(run.status == 74, "\(arguments)")
            #expect(run.stderr == "error: \(nowhere) does not exist; pass \(what)\n", "\(arguments): \(run.stderr)")
        }
    }

    /// export, verify and replay read a data dir without changing it: a store left at schema version 1
    /// by an older segued (still running, mid-upgrade) must still be version 1 afterwards, or that
    /// segued would refuse to start again. The older store is made with the sqlite3 shell.
    @Test(.sqliteOnly) func readingToolsLeaveAnOlderSchemaAsItWas() throws {
        let d = try DaemonProcess()
        try Cli.run(["create", "main", "Home"], daemon: d)
        try Cli.run(["push", "main", "Detail", "--no-animate", "--id", "tap"], daemon: d)
        #expect(d.stop() == 0)
        let database = d.dataDir + "/segue.db"
        func sqlite(_ sql: String) throws -> String {
            try Reliability.run("/usr/bin/sqlite3", [database, sql]).output.trimmingCharacters(
                in: .whitespacesAndNewlines)
        }
        _ = try sqlite(
            "ALTER TABLE commands DROP COLUMN fingerprint; "
                + "CREATE INDEX events_command ON events (command) WHERE command IS NOT NULL; PRAGMA user_version = 1;")
        #expect(try sqlite("PRAGMA user_version;") == "1")
        #expect(try Cli.run(["export", "--data-dir", d.logLocation]).stdout.split(separator: "\n").count == 3)
        #expect(try Cli.run(["verify", "--data-dir", d.logLocation]).status == 0)
        #expect(try Cli.run(["replay", d.logLocation, "--json"]).status == 0)
        #expect(try sqlite("PRAGMA user_version;") == "1", "no reading tool migrated the store")
        #expect(try sqlite("SELECT COUNT(*) FROM pragma_table_info('commands') WHERE name = 'fingerprint';") == "0")
        #expect(try sqlite("SELECT name FROM sqlite_master WHERE name = 'events_command';") == "events_command")

        // --check-config says what the next start will do to it, and leaves it as it was too.
        let check = try Reliability.run(DaemonProcess.binary("segued"), ["--check-config", "--data-dir", d.dataDir])
        #expect(check.status == 0, "\(check.output)")
        #expect(
            check.output.contains(
                "segued: store: SQLite at \(database): schema version 1; segued migrates it to 4 at its next start"),
            "\(check.output)")
        #expect(try sqlite("PRAGMA user_version;") == "1")
        // import writes, and so migrates: it says so, refused or not.
        let export = d.dataDir + "/log.jsonl"
        #expect(try Cli.run(["export", "--data-dir", d.logLocation, "-o", export]).status == 0)
        let repeated = try Cli.run(["import", "--data-dir", d.logLocation, export])
        #expect(repeated.status == 1)
        #expect(
            repeated.stderr.hasPrefix(
                "Migrated \(database) from schema version 1 to 4 (an older segued refuses it from now on).\n"),
            "\(repeated.stderr)")
        #expect(try sqlite("PRAGMA user_version;") == "4")
    }

    /// A log of a newer schema than this build's is refused by every reader, each telling the person
    /// to upgrade the program they ran (`segued --check-config` once told them to get a newer segue).
    @Test(.sqliteOnly) func aNewerLogNamesTheProgramToUpgrade() throws {
        let d = try DaemonProcess()
        #expect(d.stop() == 0)
        let database = d.dataDir + "/segue.db"
        _ = try Reliability.run("/usr/bin/sqlite3", [database, "PRAGMA user_version = 99;"])
        let check = try Reliability.run(DaemonProcess.binary("segued"), ["--check-config", "--data-dir", d.dataDir])
        #expect(check.status == 78, "\(check.output)")
        #expect(
            check.output.contains("schema version 99, newer than this build's 4. This segued is older than "),
            "\(check.output)")
        #expect(check.output.contains("upgrade segued."), "\(check.output)")
        let export = try Cli.run(["export", "--data-dir", d.logLocation])
        #expect(export.status != 0)
        #expect(
            export.stderr.contains("This segue is older than the segued that wrote it; upgrade segue."),
            "\(export.stderr)")
    }

    @Test func keygenWritesASecretOnlyTheOwnerReads() throws {
        let dir = DaemonProcess.temporaryDirectory()
        let result = try Cli.run(["keygen", "--out", dir + "/keys/ops"])
        #expect(result.status == 0, "\(result.stderr)")
        let attributes = try FileManager.default.attributesOfItem(atPath: dir + "/keys/ops.key")
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let pub = try String(contentsOfFile: dir + "/keys/ops.pub", encoding: .utf8)
        #expect(pub.count == 41)
        #expect(try Cli.run(["keygen", "--out", dir + "/keys/ops"]).status == 74)
        // Where a directory cannot be made, the system's reason, not Foundation's "could not be completed".
        let nowhere = try Cli.run(["keygen", "--out", "/proc/segue-none/keys/ops"])
        #expect(nowhere.status == 74)
        #expect(
            nowhere.stderr
                == "error: Cannot create the directory /proc/segue-none/keys: No such file or directory (errno 2).\n",
            "\(nowhere.stderr)")
    }

    @Test(arguments: [
        (["push"], "error: Missing expected argument '<navigator>'.\nSee 'segue push --help'.\n"),
        (["push", "main", "X", "--frobnicate"], "error: Unknown option '--frobnicate'.\nSee 'segue push --help'.\n"),
        (["frob"], "error: Unknown command 'frob'.\nSee 'segue --help'.\n"),
        (
            ["gesture"],
            "error: Missing command; one of: begin, update, finish, cancel, end.\nSee 'segue gesture --help'.\n"
        ),
        (
            ["replay", "log.jsonl", "--wait-subscriber"],
            "error: Option '--wait-subscriber' needs '--publish <endpoint>'.\nSee 'segue replay --help'.\n"
        ),
        (
            ["replay", "log.jsonl", "--speed", "2"],
            "error: Option '--speed' needs '--publish <endpoint>'.\nSee 'segue replay --help'.\n"
        ),
        (["watch", "--speed", "2"], "error: Option '--speed' needs '--replay <log>'.\nSee 'segue watch --help'.\n"),
        (
            ["watch", "--replay", "log.jsonl", "--speed", "0"],
            "error: The value '0' is invalid for '--speed': expected a positive factor.\nSee 'segue watch --help'.\n"
        ),
        (
            ["replay", "log.jsonl", "--publish", "tcp://127.0.0.1:1", "--max-gap", "soon"],
            "error: The value 'soon' is invalid for '--max-gap': expected a positive duration like 2s or 500ms, or off."
                + "\nSee 'segue replay --help'.\n"
        ),
        (
            ["replay", "log.jsonl", "--presentation-delay", "soon"],
            "error: The value 'soon' is invalid for '--presentation-delay': expected 0 or a positive duration like "
                + "0.4, 0.4s or 400ms.\nSee 'segue replay --help'.\n"
        ),
        (
            ["push", "main", "X", "--id", ""],
            "error: The value '' is invalid for '--id': expected 1 to 128 bytes, got 0.\nSee 'segue push --help'.\n"
        ),
        (
            ["gesture", "begin", "main", "--operation", "pop", "--owner", String(repeating: "o", count: 129)],
            "error: The value '\(String(repeating: "o", count: 40))…' is invalid for '--owner': expected 1 to 128 bytes, "
                + "got 129.\nSee 'segue gesture begin --help'.\n"
        ),
        (
            ["push", "main", "X", "--curve", "wobbly"],
            "error: The value 'wobbly' is invalid for '--curve': expected linear, easeIn, easeOut, easeInOut, default, "
                + "bezier:x1,y1,x2,y2, spring:dampingRatio,velocity, spring:mass,stiffness,damping,velocity or "
                + "spring-response:response,dampingFraction.\nSee 'segue push --help'.\n"
        ),
        (
            ["state", "main", "--timeout", "soon"],
            "error: The value 'soon' is invalid for '--timeout': expected a positive duration like 0.4, 0.4s or 400ms.\n"
                + "See 'segue state --help'.\n"
        ),
        (
            ["ping", "--endpoint", "tcp://127.0.0.1:99999"],
            "error: The value 'tcp://127.0.0.1:99999' is invalid for '--endpoint': expected a ZeroMQ endpoint like "
                + "tcp://127.0.0.1:7400 (the port must be a number from 1 to 65535).\nSee 'segue ping --help'.\n"
        ),
        (
            ["log", "--follow", "--publish-endpoint", "tpc://127.0.0.1:7401"],
            "error: The value 'tpc://127.0.0.1:7401' is invalid for '--publish-endpoint': expected a ZeroMQ endpoint "
                + "like tcp://127.0.0.1:7400 (the transport is tcp or ipc).\nSee 'segue log --help'.\n"
        ),
        (
            ["ping", "--endpoint", "inproc://segued"],
            "error: The value 'inproc://segued' is invalid for '--endpoint': expected a ZeroMQ endpoint like "
                + "tcp://127.0.0.1:7400 (inproc reaches sockets in the same process only; use tcp or ipc).\n"
                + "See 'segue ping --help'.\n"
        ),
        (
            ["keygen", "--out", "keys/"],
            "error: The value 'keys/' is invalid for '--out': expected a path and base name, e.g. ./keys/ops.\n"
                + "See 'segue keygen --help'.\n"
        ),
        // The offline commands take no daemon options: offered in their help, they would go silently unused.
        (
            ["export", "--data-dir", "d", "--timeout", "1"],
            "error: Unknown option '--timeout'.\nSee 'segue export --help'.\n"
        ),
        (
            ["replay", "log.jsonl", "--from", "12", "--to", "10"],
            "error: --from 12 is after --to 10: nothing would be replayed.\nSee 'segue replay --help'.\n"
        ),
        (
            ["push", "main", "Detail", "--param", "id=1", "--param", "id=2"],
            "error: --param id is given twice; give each parameter once.\nSee 'segue push --help'.\n"
        ),
        (
            ["verify", "log.jsonl", "--data-dir", "/var/lib/segue"],
            "error: Give either a file (log.jsonl) or --data-dir <dir> to verify, not both.\nSee 'segue verify --help'.\n"
        ),
        // The daemon's own rules, checked before anything is sent: usage errors, not its refusals (1).
        (
            ["create", "main", "Home", "--threshold", "2"],
            "error: The value '2' is invalid for '--threshold': must be in [0, 1].\nSee 'segue create --help'.\n"
        ),
        (
            ["create", "main", "Home", "--queue-limit", "0"],
            "error: The value '0' is invalid for '--queue-limit': must be in [1, 1024].\nSee 'segue create --help'.\n"
        ),
        (
            ["create", "main", "Home", "--container", "0x10"],
            "error: --container: container.width must be in [1, 100000]; got 0.\nSee 'segue create --help'.\n"
        ),
        (
            ["create", "main", "Home", "--animators", #"[{"from": 1}]"#],
            "error: --animators: animators[0].animator is required: an animator object, {} for the standard one.\n"
                + "See 'segue create --help'.\n"
        ),
        (
            ["gesture", "finish", "main", "--completion-curve", "spring:0.5,0"],
            "error: The value 'spring:0.5,0' is invalid for '--completion-curve': expected a curve name or a bezier; "
                + "a spring is given as --animator-curve (on gesture finish, cancel and end), and starts at the release "
                + "velocity.\nSee 'segue gesture finish --help'.\n"
        ),
        (
            ["gesture", "cancel", "main", "--completion-curve", "bogus"],
            "error: The value 'bogus' is invalid for '--completion-curve': expected linear, easeIn, easeOut, "
                + "easeInOut, default or bezier:x1,y1,x2,y2.\nSee 'segue gesture cancel --help'.\n"
        ),
        (
            ["swipe", "main", "pop", "--completion-speed", "3"],
            "error: --completion-speed needs --then finish or --then cancel: with --then end (the default), the "
                + "daemon decides, and completes at the navigator's pace.\nSee 'segue swipe --help'.\n"
        ),
        (
            ["swipe", "main", "pop", "--then", "end", "--completion-curve", "linear"],
            "error: --completion-curve needs --then finish or --then cancel: with --then end (the default), the "
                + "daemon decides, and completes at the navigator's pace.\nSee 'segue swipe --help'.\n"
        ),
        (
            ["gesture", "end", "main", "--time", "81266000000"],
            "error: --touch, --swipe-edge and --time go with --percent: they describe the last point.\n"
                + "See 'segue gesture end --help'.\n"
        ),
        (
            ["gesture", "cancel", "main", "--completion-speed", "0"],
            "error: The value '0' is invalid for '--completion-speed': expected a speed from 0.001 to 1000 (1 is the "
                + "animator's own pace).\nSee 'segue gesture cancel --help'.\n"
        ),
    ])
    func usageErrorsExitSixtyFour(arguments: [String], stderr: String) throws {
        let result = try Cli.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr == stderr)
    }

    /// Requests piped into a bare `segue` are not dropped behind the help with status 0: it is a
    /// usage error that names `segue raw`, with global options or without.
    @Test(arguments: [[], ["--endpoint", "tcp://127.0.0.1:1"], ["--timeout", "1"]])
    func aBareSegueWithPipedRequestsPointsToRaw(options: [String]) throws {
        let piped = try Cli.run(options, stdin: "ping\n")
        #expect(piped.status == 64, "\(piped.stdout)")
        #expect(piped.stdout.isEmpty)
        #expect(
            piped.stderr
                == "error: No command given. To send requests from stdin, one per line, use segue raw.\n"
                + "See 'segue --help'.\n")
    }

    @Test func versionAndExportJSON() throws {
        let version = try Cli.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout == "segue \(SegueVersion.current)\n")
        let versionJSON = try Cli.run(["--version", "--json"])
        #expect(versionJSON.status == 0)
        #expect(
            try JSON.parse(versionJSON.stdout) == ["version": .string(SegueVersion.current)], "\(versionJSON.stdout)")
        let extra = try Cli.run(["--version", "extra"])
        #expect(extra.status == 64 && extra.stderr == "error: Unexpected argument 'extra'.\nSee 'segue --help'.\n")
        let help = try Cli.run(["--version", "--help"])
        #expect(help.status == 0 && help.stdout.hasPrefix("OVERVIEW: "), "\(help)")
        let d = try DaemonProcess()
        try Cli.run(["create", "main", "Home"], daemon: d)
        #expect(d.stop() == 0)
        let file = d.dataDir + "/out.jsonl"
        let export = try Cli.run(["export", "--data-dir", d.logLocation, "-o", file, "--json"])
        #expect(export.status == 0)
        #expect(export.stderr == "")
        #expect(try JSON.parse(export.stdout) == ["ok": true, "exported": 1, "file": .string(file)])
    }

    @Test func helpOnEverySubcommandHasExamples() throws {
        for command in ["create", "push", "pop", "gesture begin", "swipe", "state", "log", "replay", "watch", "keygen"]
        {
            let result = try Cli.run(command.split(separator: " ").map(String.init) + ["--help"])
            #expect(result.status == 0)
            #expect(result.stdout.contains("USAGE: segue \(command)"), "\(command)")
            #expect(result.stdout.contains("EXAMPLES:"), "\(command)")
        }
    }
}
