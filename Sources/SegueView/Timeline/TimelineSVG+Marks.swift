import SegueCore

extension TimelineSVG {
    /// One marker per event under the lane's bands; events of one frame stacked. A queued command's
    /// marker is joined to the band it started, when it did.
    mutating func marks(of lane: Lane, _ box: TimelineLayout.LaneBox) {
        var perFrame: [Int64: Int] = [:]
        var lastLabel = -Double.infinity
        var positions: [Int64: (x: Double, y: Double)] = [:]
        for mark in timeline.marks where mark.navigator == lane.name {
            let row = perFrame[mark.frame, default: 0]
            perFrame[mark.frame] = row + 1
            let x = layout.x(mark.frame)
            let y = box.marksTop + 8 + Double(min(row, 2)) * 10
            positions[mark.seq] = (x, y)
            let kind = mark.type.split(separator: ".").last.map(String.init) ?? mark.type
            svg.begin(
                "g",
                [
                    ("class", .text("event \(kind)")), ("data-seq", .text(String(mark.seq))),
                    ("data-type", .text(mark.type)), ("data-frame", .text(String(mark.frame))),
                ])
            svg.title("seq \(mark.seq) \(mark.type) at frame \(mark.frame)\n\(mark.json)")
            if kind == "queued" {
                svg.element("path", [("d", .text("M\(n(x)) \(n(y - 5))l5 5-5 5-5-5z"))])
            } else {
                svg.element(
                    "circle", [("cx", .number(x)), ("cy", .number(y)), ("r", .number(kind == "updated" ? 2.5 : 4))])
            }
            // A seq label where there is room for it; every marker has its seq in the tooltip.
            if row == 0, x - lastLabel >= 22, kind != "updated" {
                svg.element("text", [("x", .number(x)), ("y", .number(box.marksTop + 40))], text: String(mark.seq))
                lastLabel = x
            }
            svg.end()
        }
        for band in lane.bands {
            guard let seq = band.queuedSeq, let from = positions[seq] else { continue }
            let to = (x: layout.x(band.firstFrame), y: box.bandTop + box.bandHeight)
            svg.begin(
                "path",
                [("class", .text("queue-link")), ("d", .text("M\(n(from.x)) \(n(from.y))L\(n(to.x)) \(n(to.y))"))])
            svg.title("seq \(seq) transition.queued started as transition #\(band.transition)")
            svg.end()
        }
    }

    private func n(_ value: Double) -> String { SVGWriter.number(value) }

    /// Ticks every 100 ms and labels every 500 ms of the time since the first frame shown; a break
    /// says how long it skips.
    mutating func axis() {
        guard let first = timeline.firstFrame else { return }
        let rate = Double(timeline.clock.rate)
        let y = layout.height - layout.options.axisHeight + 8
        svg.begin("g", [("class", .text("axis"))])
        for segment in layout.segments {
            let start = Double(segment.first - first) / rate
            let end = Double(segment.last - first) / rate
            var tenth = (start * 10).rounded(.up)
            while tenth / 10 <= end {
                let x = segment.x + (tenth / 10 * rate - Double(segment.first - first)) * layout.pixelsPerFrame
                let labelled = Int(tenth) % 5 == 0
                svg.element(
                    "line",
                    [
                        ("x1", .number(x)), ("x2", .number(x)), ("y1", .number(y)),
                        ("y2", .number(y + (labelled ? 7 : 4))),
                    ])
                if labelled {
                    svg.element(
                        "text", [("x", .number(x)), ("y", .number(y + 19))], text: "+" + Self.duration(tenth / 10))
                }
                tenth += 1
            }
        }
        for gap in layout.breaks {
            let x = gap.x + layout.options.breakWidth / 2
            svg.begin("g", [("class", .text("break"))])
            svg.title(
                "nothing happened for \(Self.duration(Double(gap.frames) / rate)) (\(gap.frames) frames), left out")
            svg.element("path", [("d", .text("M\(n(x - 4)) \(n(layout.options.top))v\(n(y - layout.options.top))"))])
            svg.element("text", [("x", .number(x)), ("y", .number(y + 19))], text: "⋯")
            svg.end()
        }
        svg.end()
    }

    static let style = """
        svg{font-family:'DejaVu Sans',Verdana,sans-serif;font-size:11px}
        .page{fill:#fff}.title{font-size:15px;font-weight:bold;fill:#111}.facts{fill:#555}
        .lane-bg{fill:#f8fafc;stroke:#e2e8f0}.lane-name{font-size:13px;font-weight:bold;fill:#111}.lane-rule{fill:#64748b;font-size:10px}
        .band-bg{fill:#eef2ff;stroke:#c7d2fe}.pop .band-bg{fill:#ecfdf5;stroke:#a7f3d0}.present .band-bg{fill:#f5f3ff;stroke:#ddd6fe}
        .dismiss .band-bg{fill:#fff7ed;stroke:#fed7aa}.cancelled .band-bg{stroke:#dc2626;stroke-dasharray:4 2}
        .unit{stroke:#94a3b8;stroke-width:.5;stroke-dasharray:2 2}.band-label{fill:#1e293b}
        .fraction{fill:none;stroke:#64748b;stroke-width:1;stroke-dasharray:3 2}.progress{fill:none;stroke:#2563eb;stroke-width:2}
        .interactive{fill:#fde68a;opacity:.45}.threshold{stroke:#dc2626;stroke-width:1;stroke-dasharray:5 3}
        .update{fill:#f59e0b;stroke:#92400e;stroke-width:.5}
        .turn line{stroke:#0f172a;stroke-width:.75;stroke-dasharray:1 2}.turn circle{fill:#fff;stroke-width:2}
        .finishing circle{stroke:#16a34a}.cancelling circle{stroke:#dc2626}.interrupted circle{stroke:#7c3aed}
        .turn-captions text{font-size:10px;fill:#0f172a;paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}
        .event circle,.event path{fill:#94a3b8}.event text{font-size:9px;fill:#475569;text-anchor:middle}
        .event.started circle{fill:#2563eb}.event.updated circle{fill:#f59e0b}.event.interrupted circle{fill:#7c3aed}
        .event.finishing circle,.event.completed circle{fill:#16a34a}.event.cancelling circle,.event.cancelled circle{fill:#dc2626}
        .event.queued path{fill:#eab308}.event.dropped circle{fill:#111}.event.created circle{fill:#0ea5e9}
        .queue-link{fill:none;stroke:#eab308;stroke-width:1.2;stroke-dasharray:3 2}
        .axis line{stroke:#475569}.axis text{fill:#475569;font-size:10px;text-anchor:middle}
        .break path{stroke:#cbd5e1;stroke-width:8;opacity:.6}

        """
}
