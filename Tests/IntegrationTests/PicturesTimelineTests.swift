import Foundation
import SegueCore
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `segue timeline` on a recorded session: a valid SVG (read by libxml2 through XMLParser) whose
/// progress polyline for a 0.35 s easeInOut push has exactly the points the core computes; the HTML
/// form; and the messages and statuses of docs/cli.md for bad input.
@Suite(.ownThreads) struct PicturesTimelineTests {
    /// Every element's attributes, in document order.
    final class Elements: NSObject, XMLParserDelegate {
        var all: [(name: String, attributes: [String: String])] = []
        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) { all.append((name, attributes)) }

        static func parse(_ path: String) throws -> Elements {
            let parser = try #require(XMLParser(contentsOf: URL(fileURLWithPath: path)))
            let elements = Elements()
            parser.delegate = elements
            #expect(parser.parse(), "not well-formed XML: \(String(describing: parser.parserError))")
            return elements
        }
    }

    @Test func theSVGsProgressPolylineHasTheCoresPoints() throws {
        let session = try PictureSession.record()
        defer { session.daemon.stop() }
        let dir = DaemonProcess.temporaryDirectory()
        let run = try Cli.run(["timeline", session.daemon.logLocation, "-o", dir + "/session.svg"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("Wrote \(dir)/session.svg: 1 navigator, 5 transitions, 11 events."))
        let svg = try Elements.parse(dir + "/session.svg")
        // Transition 2: the 0.35 s easeInOut push (fade). Its band says where its curves are drawn.
        let bandIndex = try #require(
            svg.all.firstIndex { $0.name == "g" && $0.attributes["data-transition"] == "2" })
        let band = svg.all[bandIndex].attributes
        let start = try #require(Int64(band["data-start-frame"] ?? ""))
        let x0 = try #require(Double(band["data-x0"] ?? ""))
        let perFrame = try #require(Double(band["data-px-per-frame"] ?? ""))
        let (y0, y1) = (try #require(Double(band["data-y0"] ?? "")), try #require(Double(band["data-y1"] ?? "")))
        let polyline = try #require(
            svg.all[bandIndex...].first { $0.name == "polyline" && $0.attributes["class"] == "progress" })
        let points = (polyline.attributes["points"] ?? "").split(separator: " ").map {
            $0.split(separator: ",").map { Double($0)! }
        }
        // The core: the animating segment's fraction per frame, the animator's curve at it.
        let clock = try FrameClock(rate: 60)
        let segment = Segment(
            startFrame: start, startFraction: 0, endFraction: 1, frames: clock.frames(forSeconds: 0.35), curve: .linear)
        let frames = Array(start...segment.endFrame)
        #expect(frames.count == 22)
        #expect(points.count == frames.count)
        let ticks = session.ticks[2] ?? []
        #expect(ticks.compactMap { $0["frame"]?.int64Value } == frames)
        var worst = 0.0
        for (k, frame) in frames.enumerated() where k < points.count {
            let fraction = segment.fraction(at: frame)
            let progress = fraction >= 1 ? 1 : TimingCurve.easeInOut.progress(atFraction: fraction, duration: 0.35)
            #expect(ticks[k]["progress"]?.doubleValue == progress, "the tick is the core's value")
            let x = x0 + Double(frame - start) * perFrame
            let y = y0 + (y1 - y0) * progress
            // The SVG prints two decimals: every point is the core's to within half a hundredth.
            #expect(
                abs(points[k][0] - x) <= 0.005 && abs(points[k][1] - y) <= 0.005,
                "point \(k): \(points[k]) vs \(x),\(y)")
            worst = max(worst, abs(points[k][0] - x), abs(points[k][1] - y))
        }
        print(
            "timeline: transition 2's \(points.count) points are the core's within \(worst) px (printing rounds to 0.005)"
        )
    }

    @Test func theHTMLFormEmbedsTheSVGAndItsScript() throws {
        let session = try PictureSession.record()
        defer { session.daemon.stop() }
        let dir = DaemonProcess.temporaryDirectory()
        let export = try Cli.run(["export", "--data-dir", session.daemon.logLocation, "-o", dir + "/log.jsonl"])
        try #require(export.status == 0)
        let run = try Cli.run([
            "timeline", dir + "/log.jsonl", "--navigator", "main", "--from", "4", "-o", dir + "/t.html",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let html = try String(contentsOfFile: dir + "/t.html", encoding: .utf8)
        #expect(html.hasPrefix("<!doctype html>"))
        #expect(html.contains("<title>segue timeline: log.jsonl</title>"))
        #expect(html.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(html.contains("window.segueTimeline"))
        #expect(html.contains("id=\"cursor\" type=\"range\""))
        // --from 4: the first transition (seqs 2 and 3) is left out.
        #expect(!html.contains("data-transition=\"1\""))
        #expect(html.contains("data-transition=\"2\""))
    }

    /// (window options, bands drawn, event markers): seqs, and an offset and a time from the log's start.
    @Test(arguments: [
        (["--from", "2", "--to", "3"], 1, 2), (["--to", "+0s"], 0, 1), (["--from", "10"], 1, 2),
        (["--to", "FIRST"], 0, 1), (["--navigator", "main", "--from", "+0s"], 5, 11),
    ])
    func windows(options: [String], bands: Int, events: Int) throws {
        let dir = try Self.sharedSession()
        let first = try #require(try Cli.run(["export", "--data-dir", dir]).stdout.split(separator: "\n").first)
        let time = try #require(try JSON.parse(String(first))["time"]?.int64Value)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let stamp = formatter.string(from: Date(timeIntervalSince1970: Double((time + 999_999) / 1_000_000) / 1000))
        let run = try Cli.run(["timeline", dir] + options.map { $0 == "FIRST" ? stamp : $0 })
        #expect(run.status == 0, "\(options): \(run.stderr)")
        #expect(run.stdout.components(separatedBy: "<g class=\"band ").count - 1 == bands, "\(options)")
        #expect(run.stdout.components(separatedBy: "<g class=\"event ").count - 1 == events, "\(options)")
    }

    /// A non-animated push logs its start and end in one frame: `--to` its start stops the replay
    /// before that frame, so a window of the start alone shows nothing and is refused; with its end
    /// it is drawn. A navigator created after `--to` is in no window up to it.
    @Test func aWindowEndingInsideAFrameShowsNothingOfIt() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        for command in [
            ["create", "main", "Home"], ["push", "main", "Detail", "--no-animate"], ["create", "b", "Home"],
        ] {
            #expect(try Cli.run(command, daemon: daemon).status == 0)
        }
        let log = daemon.dataDir + "/log.jsonl"
        #expect(try Cli.run(["export", "--data-dir", daemon.logLocation, "-o", log]).status == 0)
        let frames = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map {
            try JSON.parse(String($0))["frame"]?.int64Value
        }
        try #require(frames.count == 4 && frames[1] == frames[2], "\(frames)")
        let start = try Cli.run(["timeline", log, "--from", "2", "--to", "2"])
        #expect(start.status == 1)
        #expect(start.stderr.hasPrefix("error: No event of \(log) falls between --from 2 and --to 2 (its seqs run 1–4"))
        // The store gives its range by seq (its first and last events), not by a read to its end.
        let stored = try Cli.run(["timeline", daemon.logLocation, "--from", "2", "--to", "2"])
        #expect(stored.status == 1)
        #expect(
            stored.stderr.hasPrefix(
                "error: No event of \(daemon.logLocation) falls between --from 2 and --to 2 (its seqs run 1–4"),
            "\(stored.stderr)")
        let both = try Cli.run(["timeline", log, "--from", "2", "--to", "3"])
        #expect(both.status == 0, "\(both.stderr)")
        #expect(both.stdout.components(separatedBy: "<g class=\"event ").count - 1 == 2)
        #expect(!both.stderr.contains("takes effect"), "\(both.stderr)")
        // Cut inside a frame, the window is drawn up to it, and the events it leaves undrawn are said.
        let cut = try Cli.run(["timeline", log, "--to", "2"])
        #expect(cut.status == 0, "\(cut.stderr)")
        let frame = try #require(frames[1])
        #expect(
            cut.stderr
                == "segue timeline: seq 2 takes effect in frame \(frame) with seq 3, after --to 2: a frame's ticks "
                + "show every event of it, so the picture stops before that frame (--to 3 draws it).\n")
        // A frame of three events past the bound: the hint names its last seq, not the next one.
        var lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map { String($0) }
        var fourth = try #require(try JSON.parse(lines[3]).objectValue)
        let third = try JSON.parse(lines[2])
        fourth["frame"] = third["frame"]
        fourth["time"] = third["time"]
        lines[3] = JSON.object(fourth).serialized()
        let shared = daemon.dataDir + "/shared.jsonl"
        try (lines.joined(separator: "\n") + "\n").write(toFile: shared, atomically: true, encoding: .utf8)
        for (command, remedy) in [("timeline", "draws it"), ("replay", "takes it in")] {
            let run = try Cli.run([command, shared, "--to", "2"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(
                run.stderr.contains("seq 2 takes effect in frame \(frame) with seqs 3–4, after --to 2"), "\(run.stderr)"
            )
            #expect(run.stderr.contains("(--to 4 \(remedy))."), "\(run.stderr)")
        }
        let late = try Cli.run(["timeline", log, "--to", "3", "--navigator", "b"])
        #expect(late.status == 1)
        #expect(
            late.stderr.hasPrefix("error: No event of navigator b in \(log) falls between --from the start and --to 3"))
        // Times and offsets are said as read: a time in UTC, an offset in seconds.
        let future = try Cli.run(["timeline", log, "--from", "2030-01-01T01:00+01:00"])
        #expect(
            future.stderr.hasPrefix(
                "error: No event of \(log) falls between --from 2030-01-01T00:00:00.000Z and --to the end"),
            "\(future.stderr)")
        let offset = try Cli.run(["timeline", log, "--from", "+10m"])
        #expect(
            offset.stderr.hasPrefix("error: No event of \(log) falls between --from +600s and --to the end"),
            "\(offset.stderr)")
    }

    /// (arguments after `timeline`, status, what stderr says). `DIR` is a data dir with the session;
    /// `EMPTY` an empty file; `BARE` a directory without a log.
    static let badInputs: [(arguments: [String], status: Int32, message: String)] = [
        (["/nonexistent/log.jsonl"], 74, "error: /nonexistent/log.jsonl does not exist; pass a data dir"),
        (["EMPTY"], 1, "holds no events: there is nothing to draw."),
        (["BARE"], 74, "holds no segue.db; pass the daemon's data dir"),
        (["DIR", "--navigator", "nope"], 1, "error: DIR has no navigator nope; it has main."),
        (["DIR", "--from", "9", "--to", "3"], 64, "--from 9 is after --to 3"),
        (
            ["DIR", "--from", "yesterday"], 64,
            "error: The value 'yesterday' is invalid for '--from': expected a seq (12), a time (2025-06-01T12:00:00.5Z, or local 2025-06-01T14:00)"
        ),
        (["DIR", "--to", "+2x"], 64, "The value '+2x' is invalid for '--to': expected a seq (12)"),
        (["DIR", "--from", "500"], 1, "No event of DIR falls between --from 500 and --to the end (its seqs run 1–11"),
        (["DIR", "-o", "picture.png"], 64, "The value 'picture.png' is invalid for '--output': expected a file name"),
        (["DIR", "--frame-rate", "0"], 64, "The value '0' is invalid for '--frame-rate': expected a whole number"),
        (["DIR", "--scale", "0.5"], 64, "The value '0.5' is invalid for '--scale': expected pixels per second"),
        (["DIR", "--json"], 64, "error: Unknown option '--json'.\nSee 'segue timeline --help'."),
        (["DIR", "--endpoint", "tcp://127.0.0.1:7400"], 64, "error: Unknown option '--endpoint'."),
        (
            ["DIR", "-o", "/nonexistent/dir/t.svg"], 74,
            "error: Cannot write /nonexistent/dir/t.svg: No such file or directory (errno 2).\n"
        ),
    ]

    @Test(arguments: badInputs)
    func badInput(arguments: [String], status: Int32, message: String) throws {
        let session = try Self.sharedSession()
        let empty = DaemonProcess.temporaryDirectory() + "/empty.jsonl"
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        let bare = DaemonProcess.temporaryDirectory()
        let substitutions = ["DIR": session, "EMPTY": empty, "BARE": bare]
        let args = arguments.map { substitutions[$0] ?? $0 }
        let run = try Cli.run(["timeline"] + args)
        #expect(run.status == status, "\(args): \(run.stderr)")
        #expect(run.stderr.contains(message.replacingOccurrences(of: "DIR", with: session)), "\(run.stderr)")
        // Under --json the failure is also a JSON object on stdout, as for every command.
        #expect(run.stdout.isEmpty == !args.contains("--json"), "\(run.stdout)")
    }

    /// One recorded data dir for the bad-input cases (read only; the daemon is stopped). They are
    /// about a data dir, so it is SQLite's whatever the run selects.
    static func sharedSession() throws -> String {
        try sessionLock.withLock {
            if let dir = sessionDir { return dir }
            let session = try PictureSession.record(store: .sqlite)
            session.daemon.stop()
            sessionDir = session.daemon.dataDir
            return session.daemon.dataDir
        }
    }

    nonisolated(unsafe) static var sessionDir: String?
    static let sessionLock = NSLock()
}
