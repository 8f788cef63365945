import SegueCore

extension TimelineSVG {
    mutating func draw(_ band: Band, in lane: Lane, _ box: TimelineLayout.LaneBox, labelRoom: Double) {
        let x0 = layout.x(band.firstFrame)
        let x1 = max(layout.x(band.lastFrame), x0 + 2)
        // Where the start frame falls, past the left edge for a band that began before the frames
        // shown: frames read back from the points as start + (x − data-x0) / px-per-frame.
        let startX = x0 - Double(band.firstFrame - band.startFrame) * layout.pixelsPerFrame
        let outcome = band.outcome?.rawValue ?? "in-flight"
        svg.begin(
            "g",
            [
                ("class", .text("band \(band.operation.rawValue) \(outcome)")), ("data-navigator", .text(lane.name)),
                ("data-transition", .text(String(band.transition))),
                ("data-start-frame", .text(String(band.startFrame))),
                ("data-end-frame", .text(band.endFrame.map(String.init) ?? "")), ("data-x0", .number(startX)),
                ("data-px-per-frame", .text(String(layout.pixelsPerFrame))), ("data-y0", .number(box.y(0))),
                ("data-y1", .number(box.y(1))),
            ])
        svg.title(Self.summary(band))
        svg.element(
            "rect",
            [
                ("class", .text("band-bg")), ("x", .number(x0)), ("y", .number(box.bandTop)),
                ("width", .number(x1 - x0)), ("height", .number(box.bandHeight)),
            ])
        for value in [0.0, 1.0] {
            svg.element(
                "line",
                [
                    ("class", .text("unit")), ("x1", .number(x0)), ("x2", .number(x1)), ("y1", .number(box.y(value))),
                    ("y2", .number(box.y(value))),
                ])
        }
        interaction(band, lane, box)
        curves(band, box)
        turns(band, box)
        let label = Self.fit(Self.label(band), width: max(labelRoom, 40))
        svg.element(
            "text", [("class", .text("band-label")), ("x", .number(x0)), ("y", .number(box.bandTop - 5))], text: label)
        svg.end()
    }

    /// The fraction (thin, dashed) and the animator's progress (bold), one point per frame's tick.
    mutating func curves(_ band: Band, _ box: TimelineLayout.LaneBox) {
        guard !band.samples.isEmpty else { return }
        let fraction = band.samples.map { (x: layout.x($0.frame), y: box.y($0.fraction)) }
        let progress = band.samples.map { (x: layout.x($0.frame), y: box.y($0.progress)) }
        svg.element("polyline", [("class", .text("fraction")), ("points", .text(SVGWriter.points(fraction)))])
        svg.element("polyline", [("class", .text("progress")), ("points", .text(SVGWriter.points(progress)))])
    }

    /// Client-driven stretches shaded, with the end rule's threshold across them and each update's point.
    mutating func interaction(_ band: Band, _ lane: Lane, _ box: TimelineLayout.LaneBox) {
        for span in band.interactiveSpans {
            let a = layout.x(span.lowerBound)
            let b = max(layout.x(span.upperBound), a + 2)
            svg.element(
                "rect",
                [
                    ("class", .text("interactive")), ("x", .number(a)), ("y", .number(box.bandTop)),
                    ("width", .number(b - a)), ("height", .number(box.bandHeight)),
                ])
            let y = box.y(lane.endRule.threshold)
            svg.begin(
                "line",
                [
                    ("class", .text("threshold")), ("x1", .number(a)), ("x2", .number(b)), ("y1", .number(y)),
                    ("y2", .number(y)),
                ])
            svg.title("end rule threshold \(Self.short(lane.endRule.threshold))")
            svg.end()
        }
        for update in band.updates {
            svg.begin(
                "circle",
                [
                    ("class", .text("update")), ("cx", .number(layout.x(update.frame))),
                    ("cy", .number(box.y(update.percent))), ("r", .number(3)),
                ])
            svg.title(
                "seq \(update.seq) interaction.updated: percent \(Self.short(update.percent)), velocity "
                    + "\(Self.short(update.velocity))/s")
            svg.end()
        }
    }

    /// Interruptions and releases: a mark at the fraction, the velocity and what the end rule says.
    mutating func turns(_ band: Band, _ box: TimelineLayout.LaneBox) {
        for turn in band.turns {
            let x = layout.x(turn.frame)
            let y = box.y(turn.fraction)
            svg.begin("g", [("class", .text("turn \(turn.kind.rawValue)"))])
            svg.title(Self.explain(turn))
            svg.element(
                "line",
                [
                    ("x1", .number(x)), ("x2", .number(x)), ("y1", .number(box.bandTop)),
                    ("y2", .number(box.bandTop + box.bandHeight)),
                ])
            svg.element("circle", [("cx", .number(x)), ("cy", .number(y)), ("r", .number(4.5))])
            svg.end()
        }
    }

    /// Each turn's caption beside its mark, drawn once every band of the lane is (`turn-captions`).
    mutating func turnCaptions(_ band: Band, _ box: TimelineLayout.LaneBox) {
        for turn in band.turns {
            let y = min(box.y(turn.fraction) + 14, box.bandTop + box.bandHeight - 4)
            svg.element(
                "text",
                [("class", .text(turn.kind.rawValue)), ("x", .number(layout.x(turn.frame) + 6)), ("y", .number(y))],
                text: Self.caption(turn))
        }
    }

    static func caption(_ turn: Turn) -> String {
        switch turn.kind {
        case .interrupted: return "caught at \(short(turn.fraction))"
        case .finishing, .cancelling:
            var text = turn.kind == .finishing ? "finish" : "cancel"
            if let v = turn.velocity { text += " · v \(short(v))/s" }
            if let reason = turn.reason, reason != .requested { text += " · \(reason.rawValue)" }
            return text
        }
    }

    /// The tooltip of a turn: what happened and the end rule's verdict on the release.
    static func explain(_ turn: Turn) -> String {
        var text = "seq \(turn.seq) transition.\(turn.kind.rawValue) at fraction \(short(turn.fraction))"
        if let v = turn.velocity { text += ", release velocity \(short(v))/s" }
        if let reason = turn.reason { text += ", reason \(reason.rawValue)" }
        if let rule = turn.rule { text += "; the end rule decides \(rule.rawValue) for this release" }
        return text
    }

    static func label(_ band: Band) -> String {
        let a = band.animator
        var words = ["#\(band.transition) \(band.operation.rawValue)", a.style.name]
        if band.animated { words.append(curveName(a.curve) + " " + TimelineSVG.short(a.effectiveDuration) + " s") }
        words.append("\(band.from.name) → \(band.to.name)")
        if band.outcome == .cancelled { words.append("cancelled") }
        return words.joined(separator: " · ")
    }

    static func summary(_ band: Band) -> String {
        var text = label(band) + " (\(band.from.id) → \(band.to.id))"
        text += band.startSeq.map { ", started at seq \($0)" } ?? ", started before the frames shown"
        text += ", frame \(band.startFrame)"
        if let q = band.queuedSeq { text += ", queued at seq \(q)" }
        if let end = band.endFrame, let outcome = band.outcome {
            text += "; \(outcome.rawValue) at frame \(end) (\(end - band.startFrame) frames)"
        }
        if band.animator.curve.isSpring { text += "; a spring: progress may pass 1" }
        return text
    }

    static func curveName(_ curve: TimingCurve) -> String {
        if let named = TimingCurve.namedCurves.first(where: { $0.curve == curve }) { return named.name }
        switch curve {
        case .bezier(let x1, let y1, let x2, let y2):
            return "bezier(\([x1, y1, x2, y2].map(short).joined(separator: ",")))"
        default: return "spring"
        }
    }

    /// `text` cut with an ellipsis to about `width` pixels of the label font.
    static func fit(_ text: String, width: Double) -> String {
        let characters = Int(width / 6.3)
        guard text.count > characters else { return text }
        return String(text.prefix(max(characters - 1, 1))) + "…"
    }
}

extension TimingCurve {
    var isSpring: Bool { if case .spring = self { true } else { false } }
}
