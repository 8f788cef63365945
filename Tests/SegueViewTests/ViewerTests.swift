import SegueCore
import SegueHTTP
import SegueView
import Testing

/// The viewer's Swift side: the messages a replay and a live hub send, and the routes.
@Suite struct ViewerTests {
    /// Each message as (event name, JSON data).
    static func decode(_ messages: [[UInt8]]) throws -> [(String, JSON)] {
        try messages.map { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            var name = ""
            var data = ""
            for line in text.split(separator: "\n") {
                if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
                if line.hasPrefix("data: ") { data = String(line.dropFirst(6)) }
            }
            #expect(text.hasSuffix("\n\n"))
            return (name, try JSON.parse(data))
        }
    }

    @Test func aReplayScriptIsHelloFramesEnd() throws {
        var s = Session()
        s.run(0, "main", Session.create())
        s.run(1, "main", Session.push("Detail", ["duration": 0.1]))
        s.run(3, "other", Session.create())
        let frames = s.finish(after: 20)
        var script = ReplayScript(source: "log.jsonl", clock: s.clock)
        for f in frames { try script.add(frame: f.frame, events: f.events, ticks: f.ticks) }
        script.finish()
        let messages = try Self.decode(script.messages)
        #expect(messages.first?.0 == "hello")
        #expect(messages.first?.1["mode"]?.stringValue == "replay")
        #expect(messages.last?.0 == "end")
        #expect(messages.last?.1["frames"]?.int64Value == Int64(frames.count))
        let sent = messages.dropFirst().dropLast()
        #expect(sent.allSatisfy { $0.0 == "frame" })
        #expect(sent.map { $0.1["frame"]?.int64Value } == frames.map(\.frame))
        #expect(sent.map { $0.1["index"]?.int64Value } == (0..<Int64(frames.count)).map { $0 })
        // Ticks are sent as published (the same JSON as `segue replay --json`).
        for (message, frame) in zip(sent, frames) {
            #expect(message.1["ticks"] == .array(frame.ticks.map(\.json)))
        }
        // A state for each navigator its events changed; the completion's shows the new stack.
        let completed = try #require(
            sent.first { $0.1["events"]?.arrayValue?.contains { $0["type"] == "transition.completed" } == true })
        let state = try #require(completed.1["navigators"]?.arrayValue?.first)
        #expect(state["stack"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["Home", "Detail"])
        #expect(state["container"] == .null)
        #expect(sent.first { $0.1["navigators"]?.arrayValue?.contains { $0["navigator"] == "other" } == true } != nil)
    }

    /// `--navigator` and `--from`: other navigators' frames left out; the first frame sent has the states.
    @Test func aReplayWindowSendsOnlyWhatItShows() throws {
        var s = Session()
        s.run(0, "main", Session.create())
        s.run(1, "other", Session.create())
        s.run(5, "other", Session.push("X", ["duration": 0.1]))
        s.run(30, "main", Session.push("Detail", ["duration": 0.1]))
        var script = ReplayScript(source: "log", clock: s.clock, navigator: "main", startFrame: s.start + 20)
        for f in s.finish(after: 60) { try script.add(frame: f.frame, events: f.events, ticks: f.ticks) }
        let frames = try Self.decode(script.messages).dropFirst()
        #expect(frames.first?.1["frame"]?.int64Value == s.start + 30)
        #expect(frames.first?.1["navigators"]?.arrayValue?.compactMap { $0["navigator"]?.stringValue } == ["main"])
        #expect(frames.allSatisfy { f in f.1["ticks"]?.arrayValue?.allSatisfy { $0["navigator"] == "main" } == true })
    }

    /// One frame's ticks for `navigators`, each `{"navigator", "frame"}` and `pad` bytes more.
    static func frame(_ frame: Int64, _ navigators: [String], final: Bool = false, pad: Int = 0) -> FrameTicks {
        var batch = FrameTicks()
        for name in navigators {
            let bytes = Array(
                #"{"navigator":"\#(name)","frame":\#(frame),"pad":"\#(String(repeating: "x", count: pad))"}"#.utf8)
            #expect(batch.add(frame: frame, navigator: name, final: final, bytes: bytes) == nil)
        }
        return batch
    }

    /// A frame's ticks are one message, an array of the ticks as published; a tick of another frame
    /// ends the batch.
    @Test(arguments: [[], ["a"], ["a", "b", "c"]])
    func aFramesTicksAreOneMessage(navigators: [String]) throws {
        var batch = Self.frame(5, navigators)
        let message = try #require(try Self.decode([ViewerMessage.ticks(batch.ticks.map(\.bytes))]).first)
        #expect(message.0 == "ticks")
        #expect(message.1.arrayValue?.map { $0["navigator"]?.stringValue } == navigators)
        #expect(message.1.arrayValue?.allSatisfy { $0["frame"] == 5 } == true)
        let ended = batch.add(frame: 6, navigator: "a", final: false, bytes: Array("{}".utf8))
        #expect(ended?.ticks.map(\.navigator) == (navigators.isEmpty ? nil : navigators))
        #expect(ended?.frame == (navigators.isEmpty ? nil : 5))
        #expect(batch.frame == 6 && batch.ticks.count == 1)
    }

    /// Ticks split into messages of at most a size (one larger tick alone), in order, none lost.
    @Test(arguments: [
        ([20, 20, 20], 100, [3]), ([20, 20, 20], 45, [2, 1]), ([20, 20, 20], 15, [1, 1, 1]), ([50, 20], 30, [1, 1]),
        ([], 100, []),
    ])
    func ticksSplitIntoMessagesOfASize(sizes: [Int], limit: Int, split: [Int]) throws {
        #expect(sizes.allSatisfy { $0 >= 14 })
        // Each tick `size` bytes: `{"n":I,"p":""}` is 14.
        let ticks = sizes.enumerated().map { i, size in
            Array(#"{"n":\#(i),"p":"\#(String(repeating: "x", count: size - 14))"}"#.utf8)
        }
        let messages = try Self.decode(ViewerMessage.ticks(ticks, upTo: limit))
        #expect(messages.map { $0.1.arrayValue?.count ?? -1 } == split)
        #expect(messages.flatMap { $0.1.arrayValue ?? [] }.map { $0["n"]?.int64Value } == sizes.indices.map(Int64.init))
    }

    /// A batch is full once its ticks make a message's worth, and `take` starts the next one empty.
    @Test func aBatchIsFullAtAMessagesSize() {
        var batch = FrameTicks()
        let tick = [UInt8](repeating: 32, count: 999)
        var count = 0
        while !batch.isFull {
            #expect(batch.add(frame: 1, navigator: "n\(count)", final: false, bytes: tick) == nil)
            count += 1
        }
        #expect(count == (ViewerMessage.ticksMessageSize + 999) / 1000)
        #expect(batch.take().ticks.count == count)
        #expect(batch.isEmpty && !batch.isFull && batch.frame == nil)
    }

    @Test func aLiveHubGivesANewPageTheCurrentPicture() throws {
        let hub = LiveHub(frameRate: 60, source: "segued")
        let early = hub.connect()
        hub.navigator(["navigator": "main", "revision": 1, "stack": []])
        hub.ticks(Self.frame(7, ["main"]))
        let late = hub.connect()
        hub.ticks(Self.frame(8, ["main"], final: true))
        let after = hub.connect()
        #expect(early.queuedBytes == late.queuedBytes)
        #expect(hub.pages == 3)
        hub.reset(seq: 4)
        let reset = hub.connect()
        let helloOnly = ViewerMessage.hello(mode: "live", frameRate: 60, source: "segued").count
        #expect(reset.queuedBytes == helloOnly)
        #expect(after.queuedBytes < late.queuedBytes)
        hub.closeAll()
        #expect(hub.pages == 0)
    }

    /// A picture larger than a page's limit (navigators of large params, within the daemon's
    /// limits) still opens, whole; the limit counts from its end.
    @Test func aPictureLargerThanThePageLimitStillOpens() {
        let hub = LiveHub(frameRate: 60, source: "segued", streamLimit: 1000)
        for name in ["a", "b", "c"] {
            hub.navigator(["navigator": .string(name), "params": .string(String(repeating: "x", count: 800))])
        }
        let page = hub.connect()
        #expect(!page.isFinished && page.queuedBytes > 2400)
        #expect(hub.pages == 1)
        hub.ticks(Self.frame(1, ["a"]))
        #expect(hub.pages == 1, "a small message after the picture fits")
        hub.closeAll()
    }

    /// A silent daemon is said to every page, and to a page that connects while it lasts; once
    /// heartbeats are back, every page says so and a new page starts as before.
    @Test func aLiveHubTellsEveryPageWhileTheDaemonIsSilent() {
        let hub = LiveHub(frameRate: 60, source: "segued")
        let helloOnly = ViewerMessage.hello(mode: "live", frameRate: 60, source: "segued").count
        let early = hub.connect()
        let stale = ViewerMessage.make("status", ["stale": true, "message": "no heartbeat"]).count
        hub.status(stale: "no heartbeat")
        #expect(early.queuedBytes == helloOnly + stale)
        #expect(hub.connect().queuedBytes == helloOnly + stale, "a page that connects meanwhile is told too")
        hub.status(stale: nil)
        let back = ViewerMessage.make("status", ["stale": false, "message": .null]).count
        #expect(early.queuedBytes == helloOnly + stale + back)
        #expect(hub.connect().queuedBytes == helloOnly, "nothing to tell once heartbeats are back")
        hub.closeAll()
    }

    @Test(arguments: [
        ("/", 200, "text/html; charset=utf-8"), ("/index.html", 200, "text/html; charset=utf-8"),
        ("/viewer.js", 200, "text/javascript; charset=utf-8"), ("/viewer.css", 200, "text/css; charset=utf-8"),
        ("/events", 200, "text/event-stream; charset=utf-8"), ("/favicon.ico", 204, nil),
        ("/timeline.js", 404, "text/plain; charset=utf-8"), ("/../etc/passwd", 404, "text/plain; charset=utf-8"),
    ])
    func routes(path: String, status: Int, contentType: String?) {
        let response = ViewerSite.respond(HTTPRequest(method: "GET", path: path)) { EventStream() }
        #expect(response.status == status)
        #expect(response.headers.first { $0.name == "Content-Type" }?.value == contentType)
        if path == "/" { #expect(response.headers.contains { $0.name == "Content-Security-Policy" }) }
    }

    @Test func thePageFilesAreEmbedded() {
        #expect(PageAssets.names == ["timeline.css", "timeline.js", "viewer.css", "viewer.html", "viewer.js"])
        #expect(PageAssets.text("viewer.html").contains("<script src=\"viewer.js\"></script>"))
        #expect(PageAssets.text("viewer.js").contains("window.segue = {"))
        #expect(PageAssets.text("timeline.js").contains("timeline-data"))
    }
}
