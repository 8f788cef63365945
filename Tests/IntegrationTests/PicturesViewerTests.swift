import Foundation
import SegueCore
import Testing

/// `segue view` in a real headless Chromium: a replay paused at chosen frames draws every card with
/// the tick's transform, origin, opacity, z order and mask; a screenshot at fraction 0.5 of a slide
/// has the new card's edge at half the width; two tabs on a live daemon get the same frames.
@Suite(.ownThreads, .serialized, .enabled(if: Browser.available, Browser.skipReason))
struct PicturesViewerTests {
    /// An address's `#index=` or `#frame=` that is not a number, or past the end, opens the replay
    /// at a frame it has (the start, or the last), not on an empty page.
    @Test func aReplayOpensAtAFrameWhateverTheAddressAsks() throws {
        let session = try PictureSession.record()
        defer { session.daemon.stop() }
        let viewer = try ViewerProcess(["--replay", session.daemon.logLocation])
        defer { #expect(viewer.stop() == 0) }
        // A frame past the last opens at the last (it opened at the start); one before the first, at the first.
        let cases = [
            ("index=abc", true), ("frame=abc", true), ("index=-5", true), ("index=99999", false),
            ("frame=1", true), ("frame=999999999999999", false),
        ]
        for (hash, first) in cases {
            let result = try Browser.Probe.run(["start", viewer.url, "--hash", hash])
            let frames = try #require(result["frames"]?.int64Value)
            #expect(result["index"]?.int64Value == (first ? 0 : frames - 1), "#\(hash): \(result)")
            #expect(result["position"]?.stringValue?.hasPrefix("frame ") == true, "#\(hash): \(result)")
        }
    }

    @Test func pausedFramesDrawEveryCardAsItsTickSays() throws {
        let session = try PictureSession.record()
        defer { session.daemon.stop() }
        // For each style, the frames at about 0.3 and 0.7 of its transition (flip shows each side).
        var chosen: [Int64: JSON] = [:]
        for transition in 1...PictureSession.pushes.count {
            let ticks = try #require(session.ticks[transition])
            for share in [0.3, 0.7] {
                let tick = ticks[Int((Double(ticks.count - 1) * share).rounded())]
                chosen[tick["frame"]!.int64Value!] = tick
            }
        }
        let viewer = try ViewerProcess(["--replay", session.daemon.logLocation])
        defer { #expect(viewer.stop() == 0) }
        let result = try Browser.Probe.run(
            ["cards", viewer.url] + chosen.keys.sorted().flatMap { ["--frame", String($0)] })
        var worst = CardDeltas()
        for shown in result.arrayValue ?? [] {
            let page = try #require(shown["navigators"]?.arrayValue?.first { $0["navigator"] == "main" })
            let frame = try #require(page["frame"]?.int64Value)
            let tick = try #require(chosen[frame], "the page shows frame \(frame), not one asked for")
            let cards = page["cards"]?.arrayValue ?? []
            #expect(cards.compactMap { $0["role"]?.stringValue }.sorted() == ["from", "to"])
            for card in cards {
                let role = card["role"]!.stringValue!
                let view = try #require(tick["views"]?[role])
                #expect(card["screen"] == view["screen"], "frame \(frame) \(role)")
                worst.merge(try CardCheck.compare(card, view, device: page["device"]!, frame: frame, role: role))
            }
        }
        #expect(result.arrayValue?.count == chosen.count)
        print(
            "viewer: \(chosen.count) frames (slide, fade, flip, zoom, iris), \(2 * chosen.count) cards: max |Δ| "
                + "matrix \(worst.matrix) (after 6-digit rounding), translation \(worst.pixels) px, opacity "
                + "\(worst.opacity), origin \(worst.origin) px, mask radius \(worst.mask) px")
    }

    @Test func aSlideAtHalfwayHasTheNewCardsEdgeAtHalfTheWidth() throws {
        let session = try PictureSession.record()
        defer { session.daemon.stop() }
        let slide = try #require(session.ticks[1])
        let half = try #require(
            slide.first { $0["fraction"]?.doubleValue == 0.5 }, "a 0.5 s push at 60 Hz has frame 15 of 30")
        #expect(half["views"]?["to"]?["x"]?.doubleValue == 0.5)
        let viewer = try ViewerProcess(["--replay", session.daemon.logLocation])
        defer { #expect(viewer.stop() == 0) }
        let result = try Browser.Probe.run(["edge", viewer.url, "--frame", String(half["frame"]!.int64Value!)])
        let width = try #require(result["device"]?["width"]?.doubleValue)
        let edge = try #require(result["edge"]?.doubleValue, "no pixel of the to card's colour in the row: \(result)")
        #expect(abs(edge - width / 2) <= 2, "the to card's left edge is at \(edge) of \(width) px")
        print(
            "viewer: at fraction 0.5 the to card's left edge is at \(edge) px of a \(width) px card (half: \(width / 2))"
        )
    }

    /// The HTML timeline in the browser: the seq cursor shows the stack as of the chosen event, and zooms.
    @Test func theTimelinesCursorTravelsInTime() throws {
        let dir = try PicturesTimelineTests.sharedSession()
        let html = DaemonProcess.temporaryDirectory() + "/timeline.html"
        try #require(try Cli.run(["timeline", dir, "-o", html]).status == 0)
        // Event index 3 is seq 4, the second push's start: the stack is still Home, Screen1.
        let result = try Browser.Probe.run(["timeline", "file://" + html, "--index", "3"])
        #expect(result["label"]?.stringValue?.hasPrefix("seq 4 · main · transition.started") == true, "\(result)")
        let stacks = result["stacks"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(stacks == ["mainHome[s1]Screen1[s2]push #2 animating Screen1 → Screen2"], "\(stacks)")
        #expect(result["cursorX"] == result["markX"])
        #expect(result["zoomed"]?.doubleValue == 2 * (result["width"]?.doubleValue ?? 0))
    }

    /// The arrow keys step one frame (one event on a timeline) when the slider has the focus, as after a
    /// click on it: the page's own step and the slider's were both taken, two at a time.
    @Test func arrowKeysStepOnceWithTheSliderFocused() throws {
        let session = try PictureSession.record()
        defer { session.daemon.stop() }
        let viewer = try ViewerProcess(["--replay", session.daemon.logLocation])
        defer { #expect(viewer.stop() == 0) }
        let keys = ["--key", "ArrowRight", "--key", "ArrowRight", "--key", "ArrowLeft"]
        let replay = try Browser.Probe.run(["keys", viewer.url, "--index", "10"] + keys)
        #expect(replay["focused"] == "scrubber", "\(replay)")
        #expect(replay["positions"]?.arrayValue?.compactMap(\.int64Value) == [10, 11, 12, 11], "\(replay)")
        let dir = try PicturesTimelineTests.sharedSession()
        let html = DaemonProcess.temporaryDirectory() + "/timeline.html"
        try #require(try Cli.run(["timeline", dir, "-o", html]).status == 0)
        let timeline = try Browser.Probe.run(["keys", "file://" + html, "--index", "2"] + keys)
        #expect(timeline["focused"] == "cursor", "\(timeline)")
        #expect(timeline["positions"]?.arrayValue?.compactMap(\.int64Value) == [2, 3, 4, 3], "\(timeline)")
    }

    /// The bar of a live page says when the daemon falls silent, as a problem, instead of
    /// "connected" over a picture that may be stale, and "connected" again once heartbeats are back.
    @Test func aLivePageSaysWhenTheDaemonFallsSilent() throws {
        let daemon = try DaemonProcess.configured(#"{"heartbeatSeconds": 1}"#)
        defer { daemon.stop() }
        try #require(try Cli.run(["create", "main", "Home"], daemon: daemon).status == 0)
        let viewer = try ViewerProcess(["main"], daemon: daemon)
        defer { #expect(viewer.stop() == 0) }
        let probe = try Browser.Probe(["status", viewer.url, "--text", "no heartbeat", "--text", "connected"])
        let ready = probe.waitReady()
        if !ready { _ = try? probe.result() }
        try #require(ready, "the page never said connected: \(probe.child.stderr.suffix(2000))")
        kill(daemon.pid, SIGSTOP)
        // Silent until the page has shown it: the next heartbeat ends the silence at once.
        let silent = probe.child.wait(for: #"{"seen": "no heartbeat"}"#, timeout: .seconds(30))
        kill(daemon.pid, SIGCONT)
        #expect(silent, "\(viewer.child.stderr)")
        let statuses = try probe.result()["statuses"]?.arrayValue ?? []
        #expect(statuses.count == 2)
        #expect(
            statuses.first?["text"]
                == .string(
                    "no heartbeat from segued at \(daemon.publishEndpoint) for over 3 s: the view may be stale "
                        + "(daemon stopped, link down, or not its publish endpoint)"))
        #expect(statuses.first?["problem"] == true)
        #expect(statuses.last?["text"] == "connected" && statuses.last?["problem"] == false)
    }

    /// A live tab left open keeps the screens its navigators show now and the frames of its latest
    /// 256 transitions, not every screen and transition it ever saw.
    @Test func aLiveTabDoesNotGrowWithWhatItHasSeen() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let client = try TestClient(endpoint: daemon.commandEndpoint)
        try client.ok(["cmd": "create", "navigator": "main", "root": "Home"])
        let viewer = try ViewerProcess([], daemon: daemon)
        defer { #expect(viewer.stop() == 0) }
        let probe = try Browser.Probe(["memory", viewer.url, "--navigator", "main", "--until", "done"])
        let ready = probe.waitReady()
        if !ready { _ = try? probe.result() }
        try #require(ready, "the page never showed main: \(probe.child.stderr.suffix(2000))")
        for round in 0..<300 {
            try client.ok(["cmd": "push", "navigator": "main", "screen": .string("S\(round)"), "animated": false])
            try client.ok(["cmd": "pop", "navigator": "main", "animated": false])
        }
        try client.ok(["cmd": "create", "navigator": "done", "root": "Home"])
        let held = try probe.result()
        #expect((held["screens"]?.int64Value ?? .max) <= 2, "\(held)")
        #expect(held["transitions"]?.int64Value == 256, "\(held)")
    }

    @Test func twoTabsOnALiveDaemonGetTheSameFrames() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        try #require(try Cli.run(["create", "main", "Home"], daemon: daemon).status == 0)
        let viewer = try ViewerProcess(["main"], daemon: daemon)
        defer { #expect(viewer.stop() == 0) }
        let probe = try Browser.Probe(["tabs", viewer.url, "--navigator", "main", "--transition", "1", "--tabs", "2"])
        let ready = probe.waitReady()
        if !ready { _ = try? probe.result() }
        try #require(ready, "the tabs never showed navigator main: \(probe.child.stderr.suffix(2000))")
        let stats = try TestClient(endpoint: daemon.commandEndpoint)
        let missedBefore = try stats.missedFrames()
        let push = try Cli.run(["push", "main", "Detail", "--duration", "0.4", "--wait"], daemon: daemon)
        #expect(push.status == 0, "\(push.stderr)")
        let result = try probe.result()
        let tabs = (result["tabs"]?.arrayValue ?? []).map { $0.arrayValue?.compactMap(\.int64Value) ?? [] }
        #expect(tabs.count == 2)
        #expect(result["controls"] == "none", "a live page shows the replay controls")
        let published = try Cli.run(["replay", daemon.logLocation, "--json"]).stdout.split(separator: "\n")
            .compactMap { try? JSON.parse(String($0)) }.filter { $0["transition"] == 1 }.compactMap {
                $0["frame"]?.int64Value
            }
        #expect(published.count == 25)
        #expect(tabs.first == tabs.last, "tab 1 saw \(tabs.first ?? []), tab 2 \(tabs.last ?? [])")
        // A daemon that fell behind on a loaded machine skipped frames (`missedFrames`) but for their
        // final ticks: only those may be missing.
        let missed = try stats.missedFrames() - missedBefore
        let seen = tabs.first ?? []
        if missed == 0 {
            #expect(seen == published, "tab 1 saw \(seen)")
        } else {
            #expect(Set(seen).isSubset(of: published) && seen == seen.sorted(), "tab 1 saw \(seen)")
            #expect(seen.last == published.last, "the final tick is shown: \(seen)")
            #expect(published.count - seen.count <= missed, "missed \(missed), tab 1 saw \(seen)")
        }
        print(
            "viewer: two tabs each saw frames \(published.first ?? 0)...\(published.last ?? 0) (\(published.count) ticks)"
        )
    }
}

/// The largest differences seen between what the page computed and what the tick says.
struct CardDeltas {
    var matrix = 0.0, pixels = 0.0, opacity = 0.0, origin = 0.0, mask = 0.0
    mutating func merge(_ other: CardDeltas) {
        matrix = max(matrix, other.matrix)
        pixels = max(pixels, other.pixels)
        opacity = max(opacity, other.opacity)
        origin = max(origin, other.origin)
        mask = max(mask, other.mask)
    }
}
