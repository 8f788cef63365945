import Foundation
import SegueCore

/// A `Timeline` as a standalone SVG document: lanes, bands with their frame-by-frame curves, gesture
/// annotations, event markers with their JSON as tooltips, and a time axis.
///
/// Every band's `<g class="band">` carries where its curves sit (`data-x0`: x of its start frame,
/// `data-px-per-frame`, `data-y0` and `data-y1`: y of progress 0 and 1), so a reader can turn the
/// polylines' points back into frames and progress.
package struct TimelineSVG {
    package let timeline: Timeline
    package let layout: TimelineLayout
    var svg = SVGWriter()

    package static func render(_ timeline: Timeline, options: TimelineLayout.Options = .init()) -> String {
        var renderer = TimelineSVG(timeline: timeline, layout: TimelineLayout(timeline, options: options))
        return renderer.document()
    }

    init(timeline: Timeline, layout: TimelineLayout) {
        self.timeline = timeline
        self.layout = layout
    }

    mutating func document() -> String {
        svg.raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        svg.begin(
            "svg",
            [
                ("xmlns", .text("http://www.w3.org/2000/svg")), ("width", .number(layout.width)),
                ("height", .number(layout.height)),
                ("viewBox", .text("0 0 \(SVGWriter.number(layout.width)) \(SVGWriter.number(layout.height))")),
                ("data-frame-rate", .text(String(timeline.clock.rate))),
            ])
        svg.begin("style")
        svg.raw(Self.style)
        svg.end()
        svg.element(
            "rect", [("class", .text("page")), ("width", .number(layout.width)), ("height", .number(layout.height))])
        header()
        for (index, lane) in timeline.lanes.enumerated() { draw(lane, layout.lanes[index]) }
        axis()
        svg.end()
        return svg.text
    }

    private mutating func header() {
        svg.element(
            "text", [("class", .text("title")), ("x", .number(16)), ("y", .number(24))],
            text: "segue timeline: \(timeline.source)")
        var facts = ["\(timeline.clock.rate) Hz"]
        if let first = timeline.marks.first?.seq, let last = timeline.marks.last?.seq {
            facts.append("seq \(first)–\(last)")
        }
        if let f = timeline.firstFrame, let l = timeline.lastFrame {
            facts.append(Self.wallClock(timeline.clock.instant(ofFrame: f)))
            facts.append(Self.duration(Double(l - f) / Double(timeline.clock.rate)))
        }
        let bands = timeline.lanes.reduce(0) { $0 + $1.bands.count }
        facts.append(
            "\(timeline.lanes.count.counted("navigator")), \(bands.counted("transition"))"
        )
        svg.element(
            "text", [("class", .text("facts")), ("x", .number(16)), ("y", .number(42))],
            text: facts.joined(separator: " · "))
    }

    private mutating func draw(_ lane: Lane, _ box: TimelineLayout.LaneBox) {
        svg.begin("g", [("class", .text("lane")), ("data-navigator", .text(lane.name))])
        let bottom = box.marksTop + layout.options.marksHeight
        svg.element(
            "rect",
            [
                ("class", .text("lane-bg")), ("x", .number(8)), ("y", .number(box.top)),
                ("width", .number(layout.width - 16)), ("height", .number(bottom - box.top)),
            ])
        svg.element(
            "text", [("class", .text("lane-name")), ("x", .number(16)), ("y", .number(box.top + 20))], text: lane.name)
        let rule = lane.endRule
        svg.element(
            "text", [("class", .text("lane-rule")), ("x", .number(16)), ("y", .number(box.top + 36))],
            text: "end rule: threshold \(Self.short(rule.threshold))")
        svg.element(
            "text", [("class", .text("lane-rule")), ("x", .number(16)), ("y", .number(box.top + 50))],
            text: "velocity ×\(Self.short(rule.velocityImpact)), fling ≥ \(Self.short(rule.flingVelocity))/s")
        for (index, band) in lane.bands.enumerated() {
            let next = lane.bands.dropFirst(index + 1).first.map { layout.x($0.firstFrame) } ?? layout.width
            draw(band, in: lane, box, labelRoom: next - layout.x(band.firstFrame) - 8)
        }
        // Over every band: a caption near a band's end runs on past it, where the next band,
        // drawn later, would cover it.
        svg.begin("g", [("class", .text("turn-captions"))])
        for band in lane.bands { turnCaptions(band, box) }
        svg.end()
        marks(of: lane, box)
        svg.end()
    }

    /// Formats a value the way labels show it: up to three decimals.
    static func short(_ value: Double) -> String {
        let text = String(format: "%.3f", value)
        var trimmed = Substring(text)
        while trimmed.hasSuffix("0") { trimmed.removeLast() }
        if trimmed.hasSuffix(".") { trimmed.removeLast() }
        return trimmed == "-0" ? "0" : String(trimmed)
    }

    static func duration(_ seconds: Double) -> String {
        if seconds < 60 { return short(seconds) + " s" }
        let whole = Int(seconds.rounded())
        if whole < 3600 { return "\(whole / 60) min \(whole % 60) s" }
        return "\(whole / 3600) h \(whole % 3600 / 60) min"
    }

    static func wallClock(_ nanoseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(nanoseconds) / 1e9))
    }
}
