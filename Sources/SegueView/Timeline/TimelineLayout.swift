/// Where a timeline's parts go. Time runs across at a fixed scale (`pixelsPerSecond`) inside each
/// stretch where something happens; a stretch where nothing moved for longer than `maxIdleSeconds`
/// becomes a narrow break, so a log spanning hours still shows its transitions frame by frame.
package struct TimelineLayout: Equatable, Sendable {
    package struct Options: Equatable, Sendable {
        package var pixelsPerSecond = 600.0
        /// Kept on each side of a band or event.
        package var paddingSeconds = 0.1
        /// Idle stretches longer than this become breaks.
        package var maxIdleSeconds = 0.5
        package var breakWidth = 40.0
        package var left = 160.0
        package var right = 40.0
        package var top = 56.0
        package var laneHeader = 34.0
        package var bandHeight = 96.0
        package var marksHeight = 44.0
        package var laneGap = 14.0
        package var axisHeight = 34.0
        package init() {}
    }

    /// Frames `first...last`, drawn from `x` at `pixelsPerFrame`.
    package struct Segment: Equatable, Sendable {
        package var first: Int64
        package var last: Int64
        package var x: Double
    }

    package struct LaneBox: Equatable, Sendable {
        package var top: Double
        /// The band area: progress `range.upperBound` at `bandTop`, `range.lowerBound` at its bottom.
        package var bandTop: Double
        package var bandHeight: Double
        package var marksTop: Double
        package var range: ClosedRange<Double>

        /// Where `progress` (or a fraction) is drawn in this lane.
        package func y(_ progress: Double) -> Double {
            bandTop + bandHeight * (range.upperBound - progress) / (range.upperBound - range.lowerBound)
        }
    }

    package let options: Options
    package let pixelsPerFrame: Double
    package let segments: [Segment]
    package let lanes: [LaneBox]
    package let width: Double
    package let height: Double

    package init(_ timeline: Timeline, options: Options = Options()) {
        self.options = options
        let rate = Double(timeline.clock.rate)
        let perFrame = options.pixelsPerSecond / rate
        pixelsPerFrame = perFrame
        let placed = Self.segments(
            Self.busy(timeline, padding: Int64((options.paddingSeconds * rate).rounded(.up))),
            idle: Int64((options.maxIdleSeconds * rate).rounded()), pixelsPerFrame: perFrame, options: options)
        segments = placed
        let end = placed.last.map { $0.x + Double($0.last - $0.first) * perFrame } ?? options.left
        width = (end + options.right).rounded(.up)
        var y = options.top
        var boxes: [LaneBox] = []
        for lane in timeline.lanes {
            let bandTop = y + options.laneHeader
            boxes.append(
                LaneBox(
                    top: y, bandTop: bandTop, bandHeight: options.bandHeight,
                    marksTop: bandTop + options.bandHeight + 4, range: lane.progressRange))
            y = bandTop + options.bandHeight + options.marksHeight + options.laneGap
        }
        lanes = boxes
        height = (y + options.axisHeight).rounded(.up)
    }

    /// The x of `frame`: inside a segment at the time scale; in a break, the break's middle.
    package func x(_ frame: Int64) -> Double {
        guard let firstSegment = segments.first else { return options.left }
        var low = 0
        var high = segments.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if segments[mid].first <= frame { low = mid } else { high = mid - 1 }
        }
        let segment = segments[low]
        if frame < firstSegment.first { return firstSegment.x }
        if frame <= segment.last { return segment.x + Double(frame - segment.first) * pixelsPerFrame }
        let end = segment.x + Double(segment.last - segment.first) * pixelsPerFrame
        return low + 1 < segments.count ? end + options.breakWidth / 2 : end
    }

    /// The breaks between segments: where each starts, and how many frames it leaves out.
    package var breaks: [(x: Double, frames: Int64)] {
        zip(segments, segments.dropFirst()).map { a, b in
            (a.x + Double(a.last - a.first) * pixelsPerFrame, b.first - a.last)
        }
    }

    /// Frame ranges with something to draw: each band, each event, padded.
    static func busy(_ timeline: Timeline, padding: Int64) -> [ClosedRange<Int64>] {
        var ranges: [ClosedRange<Int64>] = []
        for lane in timeline.lanes {
            for band in lane.bands {
                ranges.append((band.firstFrame - padding)...(band.lastFrame + padding))
            }
        }
        for mark in timeline.marks { ranges.append((mark.frame - padding)...(mark.frame + padding)) }
        return ranges.sorted { $0.lowerBound < $1.lowerBound }
    }

    /// Merges busy ranges closer than `idle` frames into segments and places them left to right.
    static func segments(_ busy: [ClosedRange<Int64>], idle: Int64, pixelsPerFrame: Double, options: Options)
        -> [Segment]
    {
        var merged: [ClosedRange<Int64>] = []
        for range in busy {
            if let last = merged.last, range.lowerBound - last.upperBound <= idle {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        var x = options.left
        var out: [Segment] = []
        for range in merged {
            out.append(Segment(first: range.lowerBound, last: range.upperBound, x: x))
            x += Double(range.upperBound - range.lowerBound) * pixelsPerFrame + options.breakWidth
        }
        return out
    }
}
