import Foundation
import PostgresTestSupport
import Testing

/// `segue watch` in a real terminal (a detached tmux session of fixed size), and through a pipe.
@Suite(.ownThreads, .serialized) struct CliWatchTests {
    /// No command socket and nothing published: the view says so after 3 s instead of waiting in
    /// silence (a silence after a replay's publications is said too: `aReplayPublishedWithoutADaemonIsWatched`).
    @Test func aWatchOfNothingAtAllSaysSo() throws {
        let publish = "tcp://127.0.0.1:\(DaemonProcess.freePort())"
        let watch = try CliBackground([
            "watch", "--endpoint", "tcp://127.0.0.1:\(DaemonProcess.freePort())", "--publish-endpoint", publish,
        ])
        defer { watch.finish(timeout: .zero) }
        #expect(
            watch.wait(
                for: "segue watch: nothing published at \(publish) for 3 s", onStderr: true, timeout: .seconds(20)),
            "\(watch.stderr)")
        #expect(
            watch.stderr.contains("is segued, a relay or replay --publish there? Still waiting."), "\(watch.stderr)")
    }

    /// Runs tmux through posix_spawn and waitpid: tmux's server daemonizes from the first client, and
    /// Foundation's Process waits on it unreliably; only capture-pane's output is kept (via a file).
    static func tmux(_ arguments: [String]) throws -> String {
        // A file of its own per call: tests run in parallel, and one shared file had a capture read
        // another's output, or nothing once the other unlinked it.
        let output = NSTemporaryDirectory() + "segue-tmux-\(getpid())-\(UUID().uuidString).txt"
        defer { unlink(output) }
        let quoted = arguments.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(
            separator: " ")
        let script = "exec /usr/bin/tmux \(quoted) > '\(output)' 2>/dev/null < /dev/null"
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup(script), nil]
        defer { for p in argv { free(p) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        SpawnActions.closeInherited(&actions)
        guard posix_spawn(&pid, "/bin/sh", &actions, nil, argv, environ) == 0 else { return "" }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    }

    /// Captures the pane until `predicate` holds (or gives up after `tries`), returning the last capture.
    static func capture(_ session: String, tries: Int = 100, until predicate: (String) -> Bool) throws -> String {
        var text = ""
        for _ in 0..<tries {
            text = try tmux(["capture-pane", "-p", "-t", session])
            if predicate(text) { return text }
            usleep(20_000)
        }
        return text
    }

    static func fraction(in pane: String) -> Double? {
        guard let range = pane.range(of: "fraction ") else { return nil }
        return Double(pane[range.upperBound...].prefix { $0 == "." || $0.isNumber })
    }

    @Test func terminalViewShowsMovingBarsAndStackChanges() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        try Cli.run(["create", "main", "Home"], daemon: d)
        let session = "segue-watch-\(getpid())"
        let command = "\(Cli.binary) watch --endpoint \(d.commandEndpoint) --publish-endpoint \(d.publishEndpoint)"
        _ = try Self.tmux(["new-session", "-d", "-s", session, "-x", "120", "-y", "30", command])
        defer { _ = try? Self.tmux(["kill-session", "-t", session]) }
        let idle = try Self.capture(session) { $0.contains("main  rev 1  Home[s1]") }
        #expect(idle.contains("main  rev 1  Home[s1]"), "\(idle)")
        // The header's frame moves on with the heartbeats while nothing animates.
        func headerFrame(_ pane: String) -> Int64? {
            guard let range = pane.range(of: "  frame ") else { return nil }
            return Int64(pane[range.upperBound...].prefix { $0.isNumber })
        }
        let beating = try Self.capture(session, tries: 150) { (headerFrame($0) ?? 0) > 0 }
        #expect((headerFrame(beating) ?? 0) > 0, "\(beating)")

        try Cli.run(["push", "main", "Detail", "--duration", "1.2"], daemon: d)
        let early = try Self.capture(session) { (Self.fraction(in: $0) ?? 0) > 0 }
        let later = try Self.capture(session) { (Self.fraction(in: $0) ?? 0) > (Self.fraction(in: early) ?? 1) + 0.2 }
        #expect(early.contains("#1 push Home[s1] → Detail[s2]  animating ["), "\(early)")
        #expect((Self.fraction(in: later) ?? 0) > (Self.fraction(in: early) ?? 1), "the bar moved:\n\(early)\n\(later)")
        let pushed = try Self.capture(session, tries: 150) {
            $0.contains("Home[s1] > Detail[s2]") && !$0.contains("animating")
        }
        #expect(pushed.contains("main  rev 3  Home[s1] > Detail[s2]"), "\(pushed)")

        let swipe = try Cli.run(
            ["swipe", "main", "pop", "--to", "0.6", "--over", "0.3s", "--then", "cancel"], daemon: d)
        #expect(swipe.stdout == "cancel\n")
        let cancelled = try Self.capture(session) {
            $0.contains("Home[s1] > Detail[s2]") && !$0.contains("interactive") && !$0.contains("cancelling")
        }
        #expect(cancelled.contains("Home[s1] > Detail[s2]"))
        try Cli.run(["swipe", "main", "pop", "--to", "0.5", "--over", "0.2s", "--then", "finish"], daemon: d)
        let popped = try Self.capture(session, tries: 150) { !$0.contains("Detail") && $0.contains("Home[s1]") }
        #expect(!popped.contains("Detail[s2]"), "\(popped)")
        // Ctrl-C restores the terminal: the process exits and the cursor is shown again.
        _ = try Self.tmux(["send-keys", "-t", session, "C-c"])
        var gone = false
        for _ in 0..<100 where !gone {
            usleep(20_000)
            gone = !(try Self.tmux(["list-sessions", "-F", "#{session_name}"]).contains(session))
        }
        #expect(gone, "watch exits on Ctrl-C, which ends its tmux session")
    }

    /// Ctrl-Z gives the shell its terminal back (main screen, cooked keys); `fg` takes the view up
    /// again, redrawn and live, with keys read one at a time (`q` quits without Enter).
    @Test func ctrlZStopsTheViewAndFgResumesIt() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        try Cli.run(["create", "main", "Home"], daemon: d)
        let session = "segue-watch-tstp-\(getpid())"
        _ = try Self.tmux(["new-session", "-d", "-s", session, "-x", "100", "-y", "24", "bash --norc --noprofile"])
        defer { _ = try? Self.tmux(["kill-session", "-t", session]) }
        func alternateScreen() throws -> Bool {
            try Self.tmux(["display-message", "-p", "-t", session, "#{alternate_on}"]).hasPrefix("1")
        }
        let command = "\(Cli.binary) watch --endpoint \(d.commandEndpoint) --publish-endpoint \(d.publishEndpoint)"
        _ = try Self.tmux(["send-keys", "-t", session, command, "Enter"])
        _ = try Self.capture(session, tries: 500) { $0.contains("main  rev 1  Home[s1]") }
        #expect(try alternateScreen())

        _ = try Self.tmux(["send-keys", "-t", session, "C-z"])
        let stopped = try Self.capture(session, tries: 500) { $0.contains("Stopped") }
        #expect(stopped.contains("Stopped"), "\(stopped)")
        #expect(try !alternateScreen(), "the shell gets the main screen back")

        _ = try Self.tmux(["send-keys", "-t", session, "fg", "Enter"])
        try Cli.run(["push", "main", "Detail", "--no-animate"], daemon: d)
        let resumed = try Self.capture(session, tries: 500) { $0.contains("main  rev 3  Home[s1] > Detail[s2]") }
        #expect(resumed.contains("main  rev 3  Home[s1] > Detail[s2]"), "\(resumed)")
        #expect(try alternateScreen())
        _ = try Self.tmux(["send-keys", "-t", session, "q"])
        var back = false
        for _ in 0..<500 where !back {
            usleep(20_000)
            back = try !alternateScreen()
        }
        #expect(back, "q quits at once after fg: keys are read raw again")
    }

    /// `watch --replay` reads the log as it shows it, so a bad line past the first frames is found
    /// with the view up: the error is said on the main screen once the view is gone, whole (putting
    /// the terminal back twice moved the cursor back over it).
    @Test func aBadLineFoundDuringAReplayIsSaidOnTheMainScreen() throws {
        let file = DaemonProcess.temporaryDirectory() + "/log.jsonl"
        try CliLargeLogTests.export(pushes: 100, to: file)
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").prefix(300)
        try (lines.joined(separator: "\n") + "\n{\"seq\": 301\n").write(toFile: file, atomically: true, encoding: .utf8)
        let session = "segue-watch-bad-\(getpid())"
        _ = try Self.tmux(["new-session", "-d", "-s", session, "-x", "160", "-y", "24", "bash --norc --noprofile"])
        defer { _ = try? Self.tmux(["kill-session", "-t", session]) }
        _ = try Self.tmux(["send-keys", "-t", session, "\(Cli.binary) watch --replay \(file); echo EXIT=$?", "Enter"])
        // The typed line holds "EXIT=$?" too, twice when bash starts after the keys were sent (tmux
        // shows them, then bash's prompt again): wait for the echo's digits. Half a second alone; up
        // to 30 s beside the rest of the suite (a CI run once saw no frame drawn in 10 s).
        let pane = try Self.capture(session, tries: 1500) { $0.contains(#/EXIT=\d/#) }
        #expect(pane.contains("EXIT=1"), "a log found wrong: \(pane)")
        #expect(pane.contains("error: \(file) line 301, column "), "\(pane)")
    }

    /// A terminal that takes no cursor movement (`TERM=dumb`) gets the plain lines a pipe gets.
    @Test func plainLinesOnADumbTerminal() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        try Cli.run(["create", "main", "Home"], daemon: d)
        let session = "segue-watch-dumb-\(getpid())"
        // exec: segue itself holds the pane, so closing the session hangs it up; a shell left between
        // them (which inherits the test runner's blocked signals) would outlive it, and so would
        // watch, waiting for its stopped daemon.
        let command =
            "exec env TERM=dumb \(Cli.binary) watch main --endpoint \(d.commandEndpoint) "
            + "--publish-endpoint \(d.publishEndpoint)"
        _ = try Self.tmux(["new-session", "-d", "-s", session, "-x", "100", "-y", "24", command])
        defer { _ = try? Self.tmux(["kill-session", "-t", session]) }
        let pane = try Self.capture(session, tries: 500) { $0.contains("main: stack Home[s1]") }
        #expect(pane.hasPrefix("main: stack Home[s1]\n"), "\(pane)")
        #expect(try Self.tmux(["display-message", "-p", "-t", session, "#{alternate_on}"]).hasPrefix("0"))
    }

    @Test func plainLinesWhenStdoutIsNotATerminal() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        try Cli.run(["create", "main", "Home"], daemon: d)
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: Cli.binary)
        watcher.arguments = ["watch", "main", "--endpoint", d.commandEndpoint, "--publish-endpoint", d.publishEndpoint]
        let out = Pipe()
        watcher.standardOutput = out
        try watcher.run()
        usleep(300_000)
        // Long enough that a loaded daemon, which skips frames without ticks, still ticks in it.
        try Cli.run(["push", "main", "Detail", "--duration", "0.5", "--wait"], daemon: d)
        usleep(200_000)
        watcher.terminate()
        watcher.waitUntilExit()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(!text.contains("\u{1B}"), "no ANSI when piped")
        #expect(text.hasPrefix("main: stack Home[s1]\n"))
        #expect(text.contains("main: #1 push animating ["))
        #expect(text.contains("final"))
        #expect(text.contains("main: stack Home[s1] > Detail[s2]\n"))
    }

    /// A named navigator that does not exist is shown as awaited (a typo is not a silent, empty
    /// view), and appears when it is created.
    /// A piped view that fell behind (stopped here while two pushes completed) still prints each
    /// stack in turn: stacks come from the events, not from a `state` read when it catches up.
    @Test func pipedLinesShowEveryStackOfAReaderThatFellBehind() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        try Cli.run(["create", "main", "Home"], daemon: d)
        let watcher = try CliBackground(
            ["watch", "main", "--endpoint", d.commandEndpoint, "--publish-endpoint", d.publishEndpoint])
        #expect(watcher.wait(for: "main: stack Home[s1]\n"))
        kill(watcher.process.processIdentifier, SIGSTOP)
        try Cli.run(["push", "main", "A", "--no-animate"], daemon: d)
        try Cli.run(["push", "main", "B", "--no-animate"], daemon: d)
        try Cli.run(["pop", "main", "--no-animate"], daemon: d)
        kill(watcher.process.processIdentifier, SIGCONT)
        let stacks = { (text: String) in
            text.split(separator: "\n").filter { $0.hasPrefix("main: stack ") }.map { String($0.dropFirst(12)) }
        }
        watcher.wait { stacks($0).count == 4 }
        watcher.process.terminate()
        watcher.finish()
        #expect(
            stacks(watcher.stdout) == ["Home[s1]", "Home[s1] > A[s2]", "Home[s1] > A[s2] > B[s3]", "Home[s1] > A[s2]"],
            "\(watcher.stdout)")
    }

    @Test func aNavigatorNotCreatedYetIsAwaitedThenShown() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        let watcher = try CliBackground(
            ["watch", "later", "--endpoint", d.commandEndpoint, "--publish-endpoint", d.publishEndpoint])
        #expect(watcher.wait(for: "later: not created yet; waiting for it\n"))
        try Cli.run(["create", "later", "Home"], daemon: d)
        #expect(watcher.wait(for: "later: stack Home[s1]\n"), "\(watcher.stdout)")
        watcher.process.terminate()
        watcher.finish()
        #expect(watcher.stdout.hasPrefix("later: not created yet; waiting for it\n"), "\(watcher.stdout)")
    }

    /// segued stopped (SIGTERM) for longer than watch's `--timeout`: its last heartbeat asks a check
    /// of the navigator (heartbeats are 30 s apart here, so it is the first since the push) that gets
    /// no answer. The view keeps waiting and shows what the restarted daemon does.
    @Test func aViewOutlivesADaemonStoppedLongerThanItsTimeout() throws {
        let config = try DaemonProcess.configFile(#"{"heartbeatSeconds": 30}"#)
        let first = try DaemonProcess(arguments: config)
        try Cli.run(["create", "main", "Home"], daemon: first)
        let watcher = try CliBackground(
            ["watch", "main", "--timeout", "300ms", "--endpoint", first.commandEndpoint, "--publish-endpoint"]
                + [first.publishEndpoint])
        #expect(watcher.wait(for: "main: stack Home[s1]\n"))
        try Cli.run(["push", "main", "Detail", "--no-animate"], daemon: first)
        #expect(watcher.wait(for: "main: stack Home[s1] > Detail[s2]\n"))
        #expect(first.stop() == 0)
        usleep(1_500_000)
        #expect(watcher.process.isRunning, "\(watcher.stderr)")
        // Heartbeats 0.2 s apart now: events published before the subscription reconnected show soon.
        let second = try first.restarted(arguments: try DaemonProcess.configFile(#"{"heartbeatSeconds": 0.2}"#))
        defer { second.stop() }
        try Cli.run(["pop", "main", "--no-animate"], daemon: second)
        // The stack back to its root, shown after the push's.
        let popped = watcher.wait {
            $0.components(separatedBy: "Detail[s2]\n").last?.contains("main: stack Home[s1]\n") == true
        }
        #expect(popped, "\(watcher.stdout)")
        watcher.process.terminate()
        watcher.finish()
        #expect(watcher.stderr.isEmpty, "\(watcher.stderr)")
    }

    /// A view with no heartbeat for three of the daemon's intervals (`ping`'s `heartbeatSeconds`,
    /// here 1.5 s) says it may be stale, and says when it is current again (on stderr when piped,
    /// under the header on a terminal).
    @Test func aSilentDaemonIsReportedAndItsReturnToo() throws {
        let d = try DaemonProcess.configured(#"{"heartbeatSeconds": 1.5}"#)
        defer { d.stop() }
        try Cli.run(["create", "main", "Home"], daemon: d)
        let watcher = try CliBackground(
            ["watch", "main", "--endpoint", d.commandEndpoint, "--publish-endpoint", d.publishEndpoint])
        // Its snapshot shown, the watcher has asked all it asks at start (state, ping).
        #expect(watcher.wait(for: "main: stack Home[s1]\n"))
        kill(d.pid, SIGSTOP)
        let silence =
            "segue watch: no heartbeat from segued at \(d.publishEndpoint) for over 4.5 s: the view may be stale "
            + "(daemon stopped, link down, or not its publish endpoint)\n"
        #expect(watcher.wait(for: silence, onStderr: true, timeout: .seconds(20)), "\(watcher.stderr)")
        kill(d.pid, SIGCONT)
        let back = "segue watch: heartbeats are back; the view is current.\n"
        #expect(watcher.wait(for: back, onStderr: true, timeout: .seconds(10)), "\(watcher.stderr)")
        watcher.process.terminate()
        watcher.finish()
        #expect(watcher.stderr == silence + back)
    }
}
