import Foundation
import SegueCore
import Testing

/// `segue watch`'s screen in a real terminal (tmux): it fits the terminal however many navigators
/// and however long their stacks, follows a resize, scrolls and filters, draws colour unless
/// NO_COLOR, gives the terminal back as it found it, and watches replays.
@Suite(.ownThreads, .serialized) struct CliWatchLayoutTests {
    static let tmux = CliWatchTests.tmux

    /// A daemon with 40 navigators, nav01's stack four screens deep with long names.
    static func fleet() throws -> DaemonProcess {
        let d = try DaemonProcess()
        let client = try TestClient(endpoint: d.commandEndpoint)
        for index in 1...40 {
            let name = index < 10 ? "nav0\(index)" : "nav\(index)"
            _ = try client.call(["cmd": "create", "navigator": .string(name), "root": ["name": "Home"]])
        }
        for screen in ["Detail", "VeryLongScreenNameNumberOne", "VeryLongScreenNameNumberTwo"] {
            _ = try client.call([
                "cmd": "push", "navigator": "nav01", "screen": ["name": .string(screen)], "animated": false,
            ])
        }
        return d
    }

    /// Starts `segue ARGUMENTS` (a shell line: more commands may follow) in a detached tmux session of
    /// `columns` × `rows`.
    /// `before`: shell words to run first in the session's shell (a `trap`).
    static func start(
        _ arguments: String, columns: Int, rows: Int, daemon: DaemonProcess? = nil, environment: String = "",
        before: String = ""
    ) throws -> String {
        var env = environment
        if let daemon {
            env += " SEGUE_ENDPOINT=\(daemon.commandEndpoint) SEGUE_PUBLISH_ENDPOINT=\(daemon.publishEndpoint)"
        }
        let session = "segue-layout-\(getpid())-\(UUID().uuidString.prefix(6))"
        let command = "\(before)env \(env) \(Cli.binary) \(arguments)"
        _ = try tmux(["new-session", "-d", "-s", session, "-x", "\(columns)", "-y", "\(rows)", command])
        return session
    }

    /// The words of what `stty -a > file` wrote, once it has: a terminal's settings after a command.
    static func terminalSettings(_ file: String) -> Set<Substring> {
        var stty = ""
        for _ in 0..<200 where stty.isEmpty {
            usleep(20_000)
            stty = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        }
        return Set(stty.split { $0 == " " || $0 == "\n" || $0 == ";" })
    }

    /// The frame a replay's header shows.
    static func frame(in pane: String) -> Int64? {
        guard let range = pane.range(of: "  frame ") else { return nil }
        return Int64(pane[range.upperBound...].prefix { $0.isNumber })
    }

    static func lines(_ pane: String) -> [Substring] { pane.split(separator: "\n", omittingEmptySubsequences: false) }

    /// Every line within `columns`, the header on top, and the view no taller than the terminal.
    static func expectFits(_ pane: String, columns: Int, rows: Int) {
        let shown = lines(pane).filter { !$0.isEmpty }
        #expect(shown.count <= rows, "\(pane)")
        #expect(shown.allSatisfy { $0.count <= columns }, "\(pane)")
        #expect(shown.first?.hasPrefix("segue watch") == true, "the header stays on top:\n\(pane)")
    }

    @Test(arguments: [(80, 24), (60, 20)])
    func fortyNavigatorsFitTheTerminal(columns: Int, rows: Int) throws {
        let d = try Self.fleet()
        defer { d.stop() }
        let session = try Self.start("watch", columns: columns, rows: rows, daemon: d)
        defer { _ = try? Self.tmux(["kill-session", "-t", session]) }
        let pane = try CliWatchTests.capture(session) { $0.contains("nav01  rev 7") && $0.contains("more") }
        Self.expectFits(pane, columns: columns, rows: rows)
        // The top of the long stack stays visible; what is cut is its bottom, behind "…".
        let nav01 = Self.lines(pane).first { $0.hasPrefix("nav01") } ?? ""
        #expect(nav01.hasPrefix("nav01  rev 7  …"), "\(pane)")
        #expect(nav01.hasSuffix("VeryLongScreenNameNumberTwo[s4]"), "\(pane)")
        let footer = Self.lines(pane).last { !$0.isEmpty } ?? ""
        #expect(footer.hasPrefix("… ") && footer.contains(" more"), "\(pane)")
        // A transition shows from → to and the views' values.
        try Cli.run(["push", "nav02", "Detail", "--duration", "3"], daemon: d)
        let moving = try CliWatchTests.capture(session) { $0.contains("animating [") && $0.contains("from x") }
        #expect(moving.contains("#1 push Home[s1] → Detail[s2]"), "\(moving)")
        #expect(moving.contains("to x "), "\(moving)")
        Self.expectFits(moving, columns: columns, rows: rows)
    }

    /// A transition's bar keeps its length frame after frame: its numbers have a fixed width.
    @Test func aBarKeepsItsWidth() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        try Cli.run(["create", "a", "Home"], daemon: d)
        let session = try Self.start("watch", columns: 100, rows: 20, daemon: d)
        defer { _ = try? Self.tmux(["kill-session", "-t", session]) }
        _ = try CliWatchTests.capture(session) { $0.contains("a  rev 1") }
        try Cli.run(["push", "a", "Detail", "--duration", "4", "--curve", "linear"], daemon: d)
        var lines: [Substring] = []
        for _ in 0..<6 {
            let pane = try CliWatchTests.capture(session, tries: 300) { $0.contains("animating [") }
            lines += Self.lines(pane).filter { $0.contains("animating [") }
            usleep(250_000)
        }
        #expect(lines.count == 6)
        #expect(Set(lines.map(\.count)).count == 1, "one line length: \(lines)")
        #expect(lines.allSatisfy { $0.contains(/fraction \d\.\d{3} progress \d\.\d{3}/) }, "\(lines)")
    }

    /// Names in the order a person numbers them, a filter that ignores case and is edited, not
    /// dropped, by `/`, and a header that counts closed navigators apart.
    @Test func orderFilterAndClosedNavigators() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        for name in ["nav1", "nav2", "nav10"] { try Cli.run(["create", name, "Home"], daemon: d) }
        try Cli.run(["close", "nav1"], daemon: d)
        let session = try Self.start("watch", columns: 100, rows: 20, daemon: d)
        defer { _ = try? Self.tmux(["kill-session", "-t", session]) }
        let pane = try CliWatchTests.capture(session, tries: 300) { $0.contains("nav10  rev 1") }
        let names = Self.lines(pane).filter { $0.hasPrefix("nav") }.map { $0.prefix { $0 != " " } }
        #expect(names == ["nav1", "nav2", "nav10"], "\(pane)")
        #expect(pane.contains("2 navigators (1 closed)"), "\(pane)")
        _ = try Self.tmux(["send-keys", "-t", session, "/", "N", "A", "V", "1", "Enter"])
        let filtered = try CliWatchTests.capture(session, tries: 300) { $0.contains("filter: NAV1") }
        let shown = Self.lines(filtered).filter { $0.hasPrefix("nav") }.map { $0.prefix { $0 != " " } }
        #expect(shown == ["nav1", "nav10"], "\(filtered)")
        _ = try Self.tmux(["send-keys", "-t", session, "/", "0", "Enter"])
        let edited = try CliWatchTests.capture(session, tries: 300) { $0.contains("filter: NAV10") }
        #expect(Self.lines(edited).filter { $0.hasPrefix("nav") }.count == 1, "\(edited)")
        // Narrow, the endpoint and the keys are cut before the position, the count and the filter.
        _ = try Self.tmux(["resize-window", "-t", session, "-x", "44", "-y", "12"])
        let narrow = try CliWatchTests.capture(session, tries: 300) { Self.lines($0).first?.count ?? 99 <= 44 }
        Self.expectFits(narrow, columns: 44, rows: 12)
        #expect(Self.lines(narrow).first?.contains("  seq ") == true, "\(narrow)")
        #expect(Self.lines(narrow).dropFirst().first?.hasPrefix("filter: NAV10") == true, "\(narrow)")
    }

    /// A terminal too short for a navigator's three lines in flight still shows what fits of it.
    @Test func aShortTerminalShowsWhatFitsOfANavigatorInFlight() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        try Cli.run(["create", "main", "Home"], daemon: d)
        try Cli.run(["create", "other", "Home"], daemon: d)
        let session = try Self.start("watch", columns: 100, rows: 5, daemon: d)
        defer { _ = try? Self.tmux(["kill-session", "-t", session]) }
        _ = try CliWatchTests.capture(session, tries: 300) { $0.contains("main  rev 1") }
        try Cli.run(["push", "main", "Detail", "--duration", "5"], daemon: d)
        let pane = try CliWatchTests.capture(session, tries: 300) { $0.contains("animating [") }
        Self.expectFits(pane, columns: 100, rows: 5)
        let lines = Self.lines(pane)
        #expect(lines.count >= 4 && lines[2].hasPrefix("main  rev 2  Home[s1]"), "\(pane)")
        #expect(lines[3].contains("#1 push Home[s1] → Detail[s2]"), "\(pane)")
        #expect(lines.contains { $0.hasPrefix("… 1 more") }, "\(pane)")
    }

    /// A name longer than a third of the row is cut, so the top of its stack stays in view.
    @Test func aLongNameLeavesRoomForTheStack() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        let name = "checkout-flow-for-the-international-storefront-with-a-long-name"
        try Cli.run(["create", name, "Home"], daemon: d)
        #expect(try Cli.run(["push", name, "Payment", "--no-animate"], daemon: d).status == 0)
        let session = try Self.start("watch", columns: 60, rows: 15, daemon: d)
        defer { _ = try? Self.tmux(["kill-session", "-t", session]) }
        let pane = try CliWatchTests.capture(session, tries: 300) { $0.contains("Payment[s2]") }
        Self.expectFits(pane, columns: 60, rows: 15)
        let row = Self.lines(pane).first { $0.hasPrefix("checkout") } ?? ""
        #expect(row.hasPrefix("checkout-flow-for-t…  rev 3"), "\(pane)")
        #expect(row.hasSuffix("Payment[s2]"), "\(pane)")
    }

    /// Heartbeats back after a silence: said under the header for a few seconds, as the silence was.
    @Test func theReturnOfHeartbeatsIsSaidThenCleared() throws {
        let d = try DaemonProcess.configured(#"{"heartbeatSeconds": 0.5}"#)
        defer { d.stop() }
        try Cli.run(["create", "main", "Home"], daemon: d)
        let session = try Self.start("watch", columns: 100, rows: 20, daemon: d)
        defer { _ = try? Self.tmux(["kill-session", "-t", session]) }
        _ = try CliWatchTests.capture(session) { $0.contains("main  rev 1") }
        kill(d.pid, SIGSTOP)
        let stale = try CliWatchTests.capture(session, tries: 300) { $0.contains("the view may be stale") }
        kill(d.pid, SIGCONT)
        #expect(stale.contains("the view may be stale"), "\(stale)")
        let back = try CliWatchTests.capture(session, tries: 300) {
            $0.contains("heartbeats are back; the view is current.")
        }
        #expect(back.contains("heartbeats are back") && !back.contains("may be stale"), "\(back)")
        let cleared = try CliWatchTests.capture(session, tries: 300) { !$0.contains("heartbeats are back") }
        #expect(!cleared.contains("heartbeats are back") && cleared.contains("main  rev 1"), "\(cleared)")
    }

    @Test func aResizeRedrawsToTheNewSizeAndKeysScrollAndFilter() throws {
        let d = try Self.fleet()
        defer { d.stop() }
        let session = try Self.start("watch", columns: 80, rows: 24, daemon: d)
        defer { _ = try? Self.tmux(["kill-session", "-t", session]) }
        _ = try CliWatchTests.capture(session) { $0.contains("nav01  rev 7") }
        _ = try Self.tmux(["resize-window", "-t", session, "-x", "120", "-y", "40"])
        let wide = try CliWatchTests.capture(session) { $0.contains("nav35") }
        Self.expectFits(wide, columns: 120, rows: 40)
        #expect(
            wide.contains("nav01  rev 7  Home[s1] > Detail[s2] > VeryLongScreenNameNumberOne[s3] > "),
            "all of the stack: \(wide)")
        _ = try Self.tmux(["resize-window", "-t", session, "-x", "50", "-y", "12"])
        let small = try CliWatchTests.capture(session) { !$0.contains("nav35") && $0.contains("more") }
        Self.expectFits(small, columns: 50, rows: 12)
        _ = try Self.tmux(["send-keys", "-t", session, "j", "j"])
        let scrolled = try CliWatchTests.capture(session) { $0.contains("… 2 above, ") && $0.contains(" below: j/k") }
        #expect(Self.lines(scrolled).dropFirst(2).first?.hasPrefix("nav03") == true, "\(scrolled)")
        // Paging down stops at the last full page: the last navigator at the bottom, none below.
        _ = try Self.tmux(["send-keys", "-t", session] + Array(repeating: "NPage", count: 12))
        let bottom = try CliWatchTests.capture(session) { $0.contains("nav40") && $0.contains("… 31 above: j/k") }
        let navigators = Self.lines(bottom).filter { $0.hasPrefix("nav") }
        #expect(navigators.count == 12 - 3, "header, keys, footer and a full page: \(bottom)")
        #expect(navigators.last?.hasPrefix("nav40") == true, "\(bottom)")
        _ = try Self.tmux(["send-keys", "-t", session, "/", "n", "a", "v", "4", "Enter"])
        let filtered = try CliWatchTests.capture(session) { $0.contains("filter: nav4") && $0.contains("nav40") }
        #expect(!filtered.contains("nav39") && !filtered.contains("nav01"), "\(filtered)")
    }

    /// Quit with q, or interrupted with Ctrl-C: the terminal is given back either way. `q` exits 0;
    /// Ctrl-C ends it as the signal does (130), so a shell loop around it stops too (the shell here
    /// traps the signal to go on and look).
    @Test(arguments: [("-u NO_COLOR", true, "q", "0"), ("NO_COLOR=1", false, "C-c", "130")])
    func colourUnlessNoColorAndTheTerminalIsRestored(
        environment: String, colour: Bool, quit: String, status: String
    ) throws {
        let d = try Self.fleet()
        defer { d.stop() }
        let directory = DaemonProcess.temporaryDirectory()
        let settings = directory + "/stty.txt"
        let exit = directory + "/status.txt"
        let session = try Self.start(
            "watch; echo $? > \(exit); stty -a > \(settings); sleep 5", columns: 80, rows: 24, daemon: d,
            environment: environment, before: "trap true INT; ")
        defer { _ = try? Self.tmux(["kill-session", "-t", session]) }
        _ = try CliWatchTests.capture(session) { $0.contains("nav01  rev 7") }
        let escaped = try Self.tmux(["capture-pane", "-p", "-e", "-t", session])
        #expect(escaped.contains("\u{1B}[1m") == colour, "\(escaped.prefix(300))")
        _ = try Self.tmux(["send-keys", "-t", session, quit])
        let stty = Self.terminalSettings(settings)
        #expect(stty.isSuperset(of: ["icanon", "echo", "isig"]), "raw mode undone on exit: \(stty)")
        let after = try Self.tmux(["capture-pane", "-p", "-t", session])
        #expect(!after.contains("nav01  rev 7"), "the alternate screen is left: \(after)")
        #expect((try? String(contentsOfFile: exit, encoding: .utf8)) == status + "\n")
    }

    /// A daemon that does not answer (a port that takes connections and says nothing): the header and
    /// what watch waits for show at once, long before `--timeout` gives up.
    @Test func theHeaderAndConnectingShowAtOnce() throws {
        let (fd, port) = DataDirFootprintTests.busyPort()
        defer { close(fd) }
        let endpoint = "tcp://127.0.0.1:\(port)"
        let publish = "tcp://127.0.0.1:\(DaemonProcess.freePort())"
        let started = ContinuousClock.now
        let session = try Self.start(
            "watch --endpoint \(endpoint) --publish-endpoint \(publish) --timeout 10", columns: 120, rows: 24)
        defer { _ = try? Self.tmux(["kill-session", "-t", session]) }
        let pane = try CliWatchTests.capture(session) { $0.contains("connecting to") }
        #expect(CliFailureTests.seconds(since: started) < 2, "shown at once, not after --timeout 10")
        #expect(Self.lines(pane).first?.hasPrefix("segue watch  \(endpoint)") == true, "\(pane)")
        #expect(pane.contains("connecting to \(endpoint) (commands) and \(publish) (publications)…"), "\(pane)")
    }

    /// Every step of a gesture is an event: the header's seq and the navigator's revision follow them
    /// (they showed the revision from before the gesture).
    @Test func aGestureKeepsTheSeqAndRevisionCurrent() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        try Cli.run(["create", "main", "Home"], daemon: d)
        try Cli.run(["push", "main", "Detail", "--no-animate"], daemon: d)
        let session = try Self.start("watch", columns: 100, rows: 24, daemon: d)
        defer { _ = try? Self.tmux(["kill-session", "-t", session]) }
        _ = try CliWatchTests.capture(session) { $0.contains("main  rev 2  ") }
        #expect(try Cli.run(["gesture", "begin", "main", "--operation", "pop"], daemon: d).status == 0)
        for percent in ["0.2", "0.4", "0.6"] {
            #expect(try Cli.run(["gesture", "update", "main", "--percent", percent], daemon: d).status == 0)
        }
        let state = try JSON.parse(try Cli.run(["state", "main", "--json"], daemon: d).stdout)
        let revision = try #require(state["revision"]?.int64Value)
        let events = try Cli.run(["log", "--json"], daemon: d).stdout.split(separator: "\n")
        let seq = try #require(try JSON.parse(String(events.last ?? ""))["seq"]?.int64Value)
        #expect(revision > 2 && seq > 2)
        let pane = try CliWatchTests.capture(session) {
            $0.contains("main  rev \(revision)  ") && $0.contains("  seq \(seq)  ")
        }
        #expect(pane.contains("main  rev \(revision)  "), "revision \(revision): \(pane)")
        #expect(Self.lines(pane).first?.contains("  seq \(seq)  ") == true, "seq \(seq): \(pane)")
        #expect(pane.contains("interactive ["), "\(pane)")
    }

    /// The README's tour: a replay re-published for a viewer, with no daemon running.
    @Test func aReplayPublishedWithoutADaemonIsWatched() throws {
        let d = try DaemonProcess()
        try Cli.run(["create", "main", "Home"], daemon: d)
        try Cli.run(["push", "main", "Detail", "--duration", "0.5", "--wait"], daemon: d)
        let file = d.dataDir + "/session.jsonl"
        try Cli.run(["export", "--data-dir", d.logLocation, "-o", file])
        d.stop()
        let endpoint = "tcp://127.0.0.1:\(DaemonProcess.freePort())"
        let replay = try CliBackground(["replay", file, "--publish", endpoint, "--speed", "0.5", "--wait-subscriber"])
        defer { replay.finish(timeout: .seconds(15)) }
        let session = try Self.start(
            "watch --endpoint tcp://127.0.0.1:\(DaemonProcess.freePort()) --publish-endpoint \(endpoint)", columns: 80,
            rows: 24)
        defer { _ = try? Self.tmux(["kill-session", "-t", session]) }
        let moving = try CliWatchTests.capture(session, tries: 300) { $0.contains("animating [") }
        #expect(moving.contains("no command socket at"), "\(moving)")
        #expect(moving.contains("#1 push Home[s1] → Detail[s2]"), "\(moving)")
        let done = try CliWatchTests.capture(session, tries: 300) { $0.contains("main  rev 3  Home[s1] > Detail[s2]") }
        #expect(done.contains("main  rev 3  Home[s1] > Detail[s2]"), "\(done)")
        // The replay ends and publishes nothing more (no heartbeats): after 3 s the view says so.
        let ended = try CliWatchTests.capture(session, tries: 600) { $0.contains("a replay that ended") }
        #expect(ended.contains("nothing published at \(endpoint) for 3 s (a replay that ended"), "\(ended)")
    }

    /// `watch --replay`: the log replayed in the view, paused with space, stepped with '.'.
    @Test func watchReplayPlaysPausesAndSteps() throws {
        let d = try DaemonProcess()
        try Cli.run(["create", "main", "Home"], daemon: d)
        try Cli.run(["push", "main", "Detail", "--duration", "1", "--wait"], daemon: d)
        d.stop()
        // Wide enough for the status line with a PostgreSQL URL in it.
        let session = try Self.start("watch --replay '\(d.logLocation)' --speed 0.5", columns: 200, rows: 24)
        defer { _ = try? Self.tmux(["kill-session", "-t", session]) }
        _ = try CliWatchTests.capture(session, tries: 300) { $0.contains("animating [") }
        _ = try Self.tmux(["send-keys", "-t", session, " "])
        let paused = try CliWatchTests.capture(session) { $0.hasPrefix("[paused]") }
        #expect(paused.hasPrefix("[paused]  replay \(d.logLocation)  0.5x  frame "), "\(paused)")
        let frame = try #require(Self.frame(in: paused), "\(paused)")
        let fraction = try #require(CliWatchTests.fraction(in: paused), "\(paused)")
        usleep(300_000)
        let still = try Self.tmux(["capture-pane", "-p", "-t", session])
        #expect(Self.frame(in: still) == frame && CliWatchTests.fraction(in: still) == fraction, "paused: \(still)")
        // One frame per '.' (an eased fraction may not show a change after one frame, so ten).
        _ = try Self.tmux(["send-keys", "-t", session, "."])
        // A pane without a frame (an empty capture from a loaded tmux) is not a step.
        let stepped = try CliWatchTests.capture(session) { Self.frame(in: $0).map { $0 != frame } ?? false }
        #expect(Self.frame(in: stepped) == frame + 1, "one frame on: \(stepped)")
        _ = try Self.tmux(["send-keys", "-t", session] + Array(repeating: ".", count: 9))
        let further = try CliWatchTests.capture(session) { Self.frame(in: $0) == frame + 10 }
        #expect(Self.frame(in: further) == frame + 10, "\(further)")
        #expect((CliWatchTests.fraction(in: further) ?? 0) > fraction, "ten frames on: \(further)")
        _ = try Self.tmux(["send-keys", "-t", session, " "])
        let over = try CliWatchTests.capture(session, tries: 400) { $0.contains("the replay is over") }
        #expect(over.contains("main  rev 3  Home[s1] > Detail[s2]"), "\(over)")
    }
}
