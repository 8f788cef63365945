import SegueCore
import SegueView
import Testing

/// What a timeline gathers from replayed frames: the core's values, not a second computation.
@Suite struct TimelineBuilderTests {
    static func build(_ frames: [Session.Frame], clock: FrameClock, startFrame: Int64 = .min, navigator: String? = nil)
        throws -> Timeline
    {
        var builder = TimelineBuilder(source: "test", clock: clock, navigator: navigator, startFrame: startFrame)
        for f in frames { try builder.add(frame: f.frame, events: f.events, ticks: f.ticks) }
        return builder.timeline
    }

    /// A 0.35 s easeInOut push at 60 Hz: 21 frames after its start, 22 samples, each the curve at its fraction.
    @Test func aPushIsSampledFrameByFrame() throws {
        var s = Session()
        s.run(0, "main", Session.create())
        s.run(5, "main", Session.push("Detail", ["duration": 0.35, "curve": "easeInOut"]))
        let timeline = try Self.build(s.finish(after: 40), clock: s.clock)
        let band = try #require(timeline.lane("main")?.bands.first)
        #expect(band.startFrame == s.start + 5)
        #expect(band.endFrame == s.start + 26)
        #expect(band.outcome == .completed)
        #expect(band.samples.map(\.frame) == Array((s.start + 5)...(s.start + 26)))
        for (k, sample) in band.samples.enumerated() {
            #expect(sample.fraction == min(1, Double(k) / 21))
            #expect(sample.progress == TimingCurve.easeInOut.progress(atFraction: sample.fraction, duration: 0.35))
        }
        #expect(timeline.marks.map(\.type) == ["navigator.created", "transition.started", "transition.completed"])
        #expect(timeline.marks.last?.stack == ["Home[s1]", "Detail[s2]"])
        #expect(timeline.marks[1].inFlight == "push #1 animating Home → Detail")
    }

    /// An interactive pop released by `end`: its updates, the release with velocity and the end rule's verdict.
    @Test(arguments: [(0.7, 0.2, EndRule.Decision.finish), (0.2, 0.1, .cancel), (0.3, 1.5, .finish)])
    func aGestureShowsItsUpdatesAndRelease(percent: Double, velocity: Double, decision: EndRule.Decision) throws {
        var s = Session()
        var config = NavigatorConfig()
        config.endRule = EndRule(threshold: 0.45, velocityImpact: 0.3, flingVelocity: 1)
        s.run(0, "main", Session.create(config))
        s.run(1, "main", Session.push("Detail", ["duration": 0.1]))
        s.run(20, "main", .begin(.pop, animator: nil))
        s.run(21, "main", .update(percent: percent / 2, velocity: velocity))
        s.run(22, "main", .update(percent: percent, velocity: velocity))
        s.run(23, "main", .end(percent: nil, velocity: nil))
        let timeline = try Self.build(s.finish(after: 80), clock: s.clock)
        let lane = try #require(timeline.lane("main"))
        #expect(lane.endRule.threshold == 0.45)
        let pop = try #require(lane.bands.last)
        #expect(pop.updates.map(\.percent) == [percent / 2, percent])
        let release = try #require(pop.turns.last)
        #expect(release.kind == (decision == .finish ? .finishing : .cancelling))
        #expect(release.fraction == percent)
        #expect(release.velocity == velocity)
        #expect(release.rule == decision)
        #expect(pop.outcome == (decision == .finish ? .completed : .cancelled))
        #expect(pop.interactiveSpans.first?.lowerBound == s.start + 20)
    }

    /// Under `busy: queue` a push sent during a transition is queued; its start is tied to its queued event.
    @Test func aQueuedStartRemembersItsQueuedEvent() throws {
        var s = Session()
        var config = NavigatorConfig()
        config.busy = .queue
        s.run(0, "main", Session.create(config))
        s.run(1, "main", Session.push("A"), id: "first")
        s.run(3, "main", Session.push("B"), id: "second")
        let timeline = try Self.build(s.finish(after: 60), clock: s.clock)
        let lane = try #require(timeline.lane("main"))
        let queued = try #require(timeline.marks.first { $0.type == "transition.queued" })
        #expect(lane.bands.count == 2)
        #expect(lane.bands[0].queuedSeq == nil)
        #expect(lane.bands[1].queuedSeq == queued.seq)
        #expect(lane.bands[1].startFrame == lane.bands[0].endFrame! + 1)
    }

    @Test func aSpringWidensTheLaneForItsOvershoot() throws {
        var s = Session()
        s.run(0, "main", Session.create())
        s.run(1, "main", Session.push("A", ["curve": ["spring": ["response": 0.5, "dampingFraction": 0.4]]]))
        let timeline = try Self.build(s.finish(after: 200), clock: s.clock)
        let lane = try #require(timeline.lane("main"))
        let peak = lane.bands[0].samples.map(\.progress).max()!
        #expect(peak > 1.1)
        #expect(lane.progressRange == 0...peak)
    }

    /// Frames before `startFrame` are folded, not drawn: a transition already running gets a band from
    /// the folded state, and the lane still knows its stack.
    @Test func aWindowStartingMidTransitionStillDrawsIt() throws {
        var s = Session()
        s.run(0, "main", Session.create())
        s.run(1, "main", Session.push("Detail", ["duration": 3]))
        s.run(2, "other", Session.create())
        let frames = s.finish(after: 240)
        let timeline = try Self.build(frames, clock: s.clock, startFrame: s.start + 120, navigator: "main")
        #expect(timeline.lanes.map(\.name) == ["main"])
        let band = try #require(timeline.lane("main")?.bands.first)
        #expect(band.startSeq == nil)
        #expect(band.startFrame == s.start + 1)
        #expect(band.samples.first?.frame == s.start + 120)
        #expect(band.to.name == "Detail")
        #expect(timeline.marks.map(\.type) == ["transition.completed"])
        // Drawn from the window's edge: the band's background, its first point and the first frame
        // of the picture are one place, and the axis starts at +0 (nothing left of the window).
        #expect(band.firstFrame == s.start + 120)
        let layout = TimelineLayout(timeline)
        #expect(layout.segments.first.map { $0.first >= s.start + 120 - 10 } == true, "\(layout.segments)")
        let svg = TimelineSVG.render(timeline)
        #expect(!svg.contains("+-"), "an axis label before the window")
        let xml = try TimelineSVGTests.Reader.read(svg)
        let background = try #require(xml.all("rect", class: "band-bg").first)
        let points = try #require(xml.all("polyline", class: "progress").first?["points"])
        let firstX = points.split(separator: " ").first?.split(separator: ",").first.map(String.init)
        #expect(background["x"] == firstX)
        // The band's geometry still reads frames back: start + (x − data-x0) / px-per-frame.
        let group = try #require(xml.all("g", class: "band").first)
        let x0 = try #require(Double(group["data-x0"] ?? ""))
        let perFrame = try #require(Double(group["data-px-per-frame"] ?? ""))
        #expect(abs(x0 + Double(120 - 1) * perFrame - Double(firstX ?? "")!) <= 0.01)
    }
}
