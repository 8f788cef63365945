import Foundation
import HTTPTestSupport
import SegueCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `segue view` without a browser: what it serves, and its messages and statuses (docs/cli.md) for bad
/// input, a port in use and an address that is not loopback.
@Suite(.ownThreads) struct PicturesViewCommandTests {
    @Test func aReplayServesThePageAndTheWholeLogAsEvents() throws {
        let dir = try PicturesTimelineTests.sharedSession()
        let viewer = try ViewerProcess(["--replay", dir, "--navigator", "main"])
        defer { #expect(viewer.stop() == 0) }
        #expect(viewer.child.stdout.contains("segue view: replaying \(dir) ("))
        let page = try String(contentsOf: URL(string: viewer.url)!, encoding: .utf8)
        #expect(page.contains("<script src=\"viewer.js\"></script>"))
        // A replay's stream is finite: hello, one frame per frame visited, end.
        let events = try String(contentsOf: URL(string: viewer.url + "events")!, encoding: .utf8)
        let names = events.split(separator: "\n").filter { $0.hasPrefix("event: ") }.map { $0.dropFirst(7) }
        #expect(names.first == "hello")
        #expect(names.last == "end")
        let replayed = try Cli.run(["replay", dir, "--json"]).stdout.split(separator: "\n").count
        #expect(events.components(separatedBy: "\"final\":").count - 1 == replayed, "every tick, once")
    }

    /// A live view whose daemon falls silent says so (the pages' bar gets the same line as a
    /// `status` message) instead of showing a stale picture as "connected", and says when it is
    /// current again.
    @Test func aLiveViewSaysWhenTheDaemonFallsSilentAndWhenItIsBack() throws {
        let d = try DaemonProcess.configured(#"{"heartbeatSeconds": 1}"#)
        defer { d.stop() }
        try Cli.run(["create", "main", "Home"], daemon: d)
        let viewer = try ViewerProcess([], daemon: d)
        defer { #expect(viewer.stop() == 0) }
        kill(d.pid, SIGSTOP)
        let silence =
            "segue view: no heartbeat from segued at \(d.publishEndpoint) for over 3 s: the view may be stale "
            + "(daemon stopped, link down, or not its publish endpoint)\n"
        #expect(viewer.child.wait(for: silence, onStderr: true, timeout: .seconds(20)), "\(viewer.child.stderr)")
        kill(d.pid, SIGCONT)
        let back = "segue view: heartbeats are back; the view is current.\n"
        #expect(viewer.child.wait(for: back, onStderr: true, timeout: .seconds(10)), "\(viewer.child.stderr)")
        #expect(viewer.child.stderr == silence + back)
    }

    /// A tab that stops reading while a fleet animates falls megabytes of ticks behind (past the 4 MiB
    /// a tab may fall behind on events and states): it is held to each navigator's newest tick instead
    /// of being cut off, and once it reads again it catches up with every transition's end, no
    /// navigator's tick after its completion.
    @Test func aTabThatFallsBehindSkipsFramesInsteadOfBeingCutOff() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        let client = try TestClient(endpoint: d.commandEndpoint)
        let names = (0..<100).map { "n\($0)" }
        for name in names { try client.ok(["cmd": "create", "navigator": .string(name), "root": "Home"]) }
        let viewer = try ViewerProcess([], daemon: d)
        defer { #expect(viewer.stop() == 0) }
        let port = try #require(URL(string: viewer.url)?.port)
        let tab = try RawHTTPClient(port: UInt16(port), timeout: .seconds(20), receiveBuffer: 4096)
        tab.get("/events")
        #expect(tab.read(untilReceiving: #""navigator":"n99""#), "the picture: \(tab.text.suffix(300))")
        for name in names {
            try client.ok([
                "cmd": "push", "navigator": .string(name), "screen": "Detail", "animator": ["duration": 4],
            ])
        }
        // 100 navigators' ticks at 60 Hz, ~0.5 KB each, for 4 s: ~12 MB the tab does not read.
        Thread.sleep(forTimeInterval: 5)
        try client.ok(["cmd": "create", "navigator": "done", "root": "Home"])
        #expect(tab.read(untilReceiving: #""navigator":"done""#), "caught up: \(tab.text.suffix(300))")
        // The final ticks held while the tab was behind follow once it has read down (whole messages).
        let deadline = ContinuousClock.now + .seconds(20)
        while tab.text.components(separatedBy: #""final":true"#).count <= names.count
            || tab.body.suffix(2) != [10, 10],
            ContinuousClock.now < deadline
        {
            Thread.sleep(forTimeInterval: 0.05)
            tab.readAvailable()
        }
        #expect(!tab.closed, "the tab was cut off")
        let messages = tab.events
        var ticks: [String: [JSON]] = [:]
        var completedAt: [String: Int] = [:]
        var lastTickAt: [String: Int] = [:]
        for (index, message) in messages.enumerated() {
            let data = try JSON.parse(message.data)
            if message.name == "ticks" {
                for tick in data.arrayValue ?? [] {
                    guard let name = tick["navigator"]?.stringValue else { continue }
                    ticks[name, default: []].append(tick)
                    if tick["final"] != true { lastTickAt[name] = index }
                }
            }
            if message.name == "event", data["type"] == "transition.completed",
                let name = data["navigator"]?.stringValue
            {
                completedAt[name] = index
            }
        }
        #expect(Set(completedAt.keys) == Set(names), "every push's completion arrived")
        // The daemon publishes a transition's final tick after its completion; none before that after it.
        let late = names.filter { (lastTickAt[$0] ?? 0) > (completedAt[$0] ?? .max) }
        #expect(late.isEmpty, "ticks in flight after their navigator's completion: \(late)")
        let withoutFinal = names.filter { ticks[$0]?.last?["final"] != true }
        #expect(withoutFinal.isEmpty, "every final tick arrives, last: not \(withoutFinal)")
        let received = ticks.values.reduce(0) { $0 + $1.count }
        let published = try Cli.run(["replay", d.logLocation, "--json"]).stdout.split(separator: "\n").count
        // What the stream's small send buffer and the hold limit (256 KiB) take, then one tick a
        // navigator: ~750 ticks. With the kernel's own send buffer (megabytes) it was ~5,800.
        #expect(received < published / 10, "the tab skipped frames: \(received) of \(published) ticks")
        print("view: a tab that stopped reading for 5 s got \(received) of \(published) ticks")
    }

    /// A navigator named that the daemon does not have yet is said, and said again once it is created.
    @Test func aLiveViewSaysANavigatorIsNotCreatedYet() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        try Cli.run(["create", "main", "Home"], daemon: d)
        let viewer = try ViewerProcess(["main", "later"], daemon: d)
        defer { #expect(viewer.stop() == 0) }
        let waiting = "segue view: later is not created yet; its panel appears when it is.\n"
        #expect(viewer.child.wait(for: waiting, onStderr: true, timeout: .seconds(10)), "\(viewer.child.stderr)")
        try Cli.run(["create", "later", "Home"], daemon: d)
        let created = "segue view: later was created.\n"
        #expect(viewer.child.wait(for: created, onStderr: true, timeout: .seconds(10)), "\(viewer.child.stderr)")
        #expect(viewer.child.stderr == waiting + created)
    }

    @Test func aPortInUseIsStatus69WithAHint() throws {
        let dir = try PicturesTimelineTests.sharedSession()
        let first = try ViewerProcess(["--replay", dir])
        defer { #expect(first.stop() == 0) }
        let address = first.url.dropFirst("http://".count).dropLast()
        let second = try Cli.run(["view", "--replay", dir, "--listen", String(address)])
        #expect(second.status == 69)
        #expect(second.stderr.contains("error: Cannot listen on \(address): the port is already in use"))
        #expect(second.stderr.contains("hint: another segue view (or another server) has it"))
    }

    /// (arguments after `view`, status, what stderr says); `DIR` is a recorded data dir, `EMPTY` an empty file.
    static let badInputs: [(arguments: [String], status: Int32, message: String)] = [
        (["--replay", "/nonexistent"], 74, "error: /nonexistent does not exist; pass a data dir"),
        (["--replay", "EMPTY"], 1, "holds no events: there is nothing to draw."),
        (["--replay", "DIR", "--navigator", "nope"], 1, "error: DIR has no navigator nope; it has main."),
        (
            ["--replay", "DIR", "--listen", "127.0.0.1"], 64,
            "error: '127.0.0.1' is not a listen address (no :PORT); expected HOST:PORT, e.g. 127.0.0.1:7480.\n"
                + "See 'segue view --help'."
        ),
        (["--replay", "DIR", "--listen", "example.com:80"], 64, "example.com is not a numeric IPv4 address"),
        (["--navigator", "main"], 64, "Option '--navigator' needs '--replay <log>'"),
        (["--frame-rate", "60"], 64, "Option '--frame-rate' needs '--replay <log>'"),
        (["--replay", "DIR", "--from", "soon"], 64, "The value 'soon' is invalid for '--from'"),
        (["--json"], 64, "error: Unknown option '--json'.\nSee 'segue view --help'."),
        (
            ["--replay", "DIR", "--listen", "192.0.2.1:0"], 69,
            "warning: --listen 192.0.2.1:0 is not a loopback address"
        ),
        (["--replay", "DIR", "--listen", "192.0.2.1:0"], 69, "that address is not one of this machine's"),
        (["--endpoint", "tcp://127.0.0.1:1", "--timeout", "0.3s", "--listen", "127.0.0.1:0"], 3, "error: "),
    ]

    @Test(arguments: badInputs)
    func badInput(arguments: [String], status: Int32, message: String) throws {
        let dir = try PicturesTimelineTests.sharedSession()
        let empty = DaemonProcess.temporaryDirectory() + "/empty.jsonl"
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        let args = arguments.map { ["DIR": dir, "EMPTY": empty][$0] ?? $0 }
        let run = try Cli.run(["view"] + args)
        #expect(run.status == status, "\(args): \(run.stderr)")
        #expect(run.stderr.contains(message.replacingOccurrences(of: "DIR", with: dir)), "\(run.stderr)")
    }
}
