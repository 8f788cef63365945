import SegueCore
import SegueView
import Testing

/// Placing frames across: a fixed scale inside busy stretches, a break for each idle one.
@Suite struct TimelineLayoutTests {
    static let clock = try! FrameClock(rate: 60)

    static func timeline(marksAt frames: [Int64]) -> Timeline {
        var t = Timeline(source: "test", clock: clock)
        t.lanes = [Lane(name: "main")]
        t.marks = frames.enumerated().map { i, f in
            EventMark(
                seq: Int64(i + 1), frame: f, navigator: "main", type: "transition.queued", transition: nil, json: "{}",
                stack: [], modals: [], inFlight: nil, queued: 0)
        }
        t.firstFrame = frames.min()
        t.lastFrame = frames.max()
        return t
    }

    /// (event frames, the segments' frame ranges). Padding is 6 frames (0.1 s) each side; idle gaps of
    /// more than 30 frames (0.5 s) split segments.
    @Test(arguments: [
        ([1000], [994...1006]),
        ([1000, 1020], [994...1026]),
        ([1000, 1042], [994...1048]),
        ([1000, 1043], [994...1006, 1037...1049]),
        ([1000, 5000, 5001], [994...1006, 4994...5007]),
    ])
    func segments(frames: [Int64], expected: [ClosedRange<Int64>]) {
        let layout = TimelineLayout(Self.timeline(marksAt: frames))
        #expect(layout.segments.map { $0.first...$0.last } == expected)
        #expect(layout.pixelsPerFrame == 10)
    }

    /// (frame, x) in a layout of segments 994...1006 at x 160 and 4994...5007 after a 40-pixel break.
    @Test(arguments: [
        (994, 160.0), (1000, 220.0), (1006, 280.0), (3000, 300.0), (4994, 320.0), (5007, 450.0), (900, 160.0),
        (9000, 450.0),
    ])
    func xOfFrame(frame: Int64, x: Double) {
        let layout = TimelineLayout(Self.timeline(marksAt: [1000, 5000, 5001]))
        #expect(layout.x(frame) == x)
        #expect(layout.breaks.map(\.frames) == [3988])
        #expect(layout.width == 490)
    }

    @Test func progressMapsIntoTheLaneAndStretchesForOvershoot() {
        var t = Self.timeline(marksAt: [1000])
        var band = Band(
            transition: 1, operation: .push, animator: .default, animated: true, from: Screen(id: "s1", name: "A"),
            to: Screen(id: "s2", name: "B"), startSeq: 1, startFrame: 1000, command: nil)
        band.samples = [Sample(frame: 1000, fraction: 0, progress: 0, phase: .animating)]
        t.lanes[0].bands = [band]
        let box = TimelineLayout(t).lanes[0]
        #expect(box.y(1) == box.bandTop)
        #expect(box.y(0) == box.bandTop + box.bandHeight)
        t.lanes[0].bands[0].samples.append(Sample(frame: 1001, fraction: 0.5, progress: 1.25, phase: .animating))
        let stretched = TimelineLayout(t).lanes[0]
        #expect(stretched.range == 0...1.25)
        #expect(stretched.y(1.25) == stretched.bandTop)
        #expect(stretched.y(1) == stretched.bandTop + stretched.bandHeight * 0.25 / 1.25)
    }
}
