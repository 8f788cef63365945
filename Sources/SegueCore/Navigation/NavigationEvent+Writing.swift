extension NavigationEvent {
    /// Writes `data` straight into `w`: exactly `writeCompact(.object(data))`, without the tree.
    ///
    /// The daemon encodes every event it appends, and building `data` as a `JSONObject` (an array of
    /// members, a box per nested object, a copy of every screen) cost about as much as writing it
    /// (docs/performance.md, "A relaxed push/pop, stage by stage"). The members come in the order
    /// `data` builds them; `NavigationEventWritingTests` holds the two together for every kind.
    /// Rare shapes (a navigator's config, keyframes, springs, a queued request) still go through
    /// their trees: only the per-command events are worth a second spelling.
    func writeData(_ w: inout JSONSerializer) {
        switch kind {
        case .created, .queued, .dropped:
            w.writeCompact(.object(data))
        case .closed:
            w.append("{}")
        case .started(let s):
            w.append("{\"transition\":")
            w.writeInt(Int64(s.transition))
            w.append(",\"operation\":")
            w.writeString(s.operation.rawValue)
            w.append(",\"from\":")
            w.writeScreen(s.from)
            w.append(",\"to\":")
            w.writeScreen(s.to)
            w.append(",\"popped\":")
            w.writeScreens(s.popped)
            w.append(",\"stack\":")
            w.writeScreens(s.stack)
            w.append(",\"modals\":")
            w.writeScreens(s.modals)
            w.append(",\"animator\":")
            w.writeAnimator(s.animator)
            w.append(s.animated ? ",\"animated\":true" : ",\"animated\":false")
            w.append(s.interactive ? ",\"interactive\":true" : ",\"interactive\":false")
            w.append(",\"nextScreen\":")
            w.writeInt(Int64(s.nextScreen))
            if let owner = s.owner {
                w.append(",\"owner\":")
                w.writeString(owner)
            }
            w.append(UInt8(ascii: "}"))
        case .updated(let t, let percent, let velocity):
            w.append("{\"transition\":")
            w.writeInt(Int64(t))
            w.append(",\"percent\":")
            w.writeDouble(percent)
            w.append(",\"velocity\":")
            w.writeDouble(velocity)
            w.append(UInt8(ascii: "}"))
        case .interrupted(let t, let fraction, let owner):
            w.append("{\"transition\":")
            w.writeInt(Int64(t))
            w.append(",\"fraction\":")
            w.writeDouble(fraction)
            if let owner {
                w.append(",\"owner\":")
                w.writeString(owner)
            }
            w.append(UInt8(ascii: "}"))
        case .finishing(let t, let fraction, let velocity, let speed, let curve):
            w.append("{\"transition\":")
            w.writeInt(Int64(t))
            w.append(",\"fraction\":")
            w.writeDouble(fraction)
            w.append(",\"completionSpeed\":")
            w.writeDouble(speed)
            w.append(",\"completionCurve\":")
            w.writeCurve(curve)
            if let velocity {
                w.append(",\"velocity\":")
                w.writeDouble(velocity)
            }
            w.append(UInt8(ascii: "}"))
        case .cancelling(let t, let fraction, let speed, let curve, let reason):
            w.append("{\"transition\":")
            w.writeInt(Int64(t))
            w.append(",\"fraction\":")
            w.writeDouble(fraction)
            w.append(",\"completionSpeed\":")
            w.writeDouble(speed)
            w.append(",\"completionCurve\":")
            w.writeCurve(curve)
            w.append(",\"reason\":")
            w.writeString(reason.rawValue)
            w.append(UInt8(ascii: "}"))
        case .completed(let t):
            w.append("{\"transition\":")
            w.writeInt(Int64(t))
            w.append(UInt8(ascii: "}"))
        case .cancelled(let t, let reason):
            w.append("{\"transition\":")
            w.writeInt(Int64(t))
            w.append(",\"reason\":")
            w.writeString(reason.rawValue)
            w.append(UInt8(ascii: "}"))
        }
    }
}

extension JSONSerializer {
    /// `Screen.json`, written directly.
    mutating func writeScreen(_ screen: Screen) {
        append("{\"id\":")
        writeString(screen.id)
        append(",\"name\":")
        writeString(screen.name)
        if let params = screen.params {
            append(",\"params\":")
            writeCompact(.object(params))
        }
        append(UInt8(ascii: "}"))
    }

    mutating func writeScreens(_ screens: [Screen]) {
        append(UInt8(ascii: "["))
        for (index, screen) in screens.enumerated() {
            if index > 0 { append(UInt8(ascii: ",")) }
            writeScreen(screen)
        }
        append(UInt8(ascii: "]"))
    }

    /// `Animator.json`, written directly (keyframes through their tree).
    mutating func writeAnimator(_ animator: Animator) {
        append("{\"style\":")
        writeString(animator.style.name)
        append(",\"edge\":")
        if let edge = animator.edge { writeString(edge.rawValue) } else { append("null") }
        append(",\"duration\":")
        writeDouble(animator.duration)
        append(",\"curve\":")
        writeCurve(animator.curve)
        append(",\"parallax\":")
        writeDouble(animator.options.parallax)
        append(",\"scale\":")
        writeDouble(animator.options.scale)
        append(",\"offset\":{\"x\":")
        writeCompact(animator.options.offsetX.json)
        append(",\"y\":")
        writeCompact(animator.options.offsetY.json)
        append(animator.options.fade ? "},\"fade\":true" : "},\"fade\":false")
        if case .keyframes(let keyframes) = animator.style {
            append(",\"keyframes\":")
            writeCompact(keyframes.json)
        }
        append(UInt8(ascii: "}"))
    }

    /// `TimingCurve.json`, written directly for named curves and beziers (springs through their tree).
    mutating func writeCurve(_ curve: TimingCurve) {
        guard case .bezier(let x1, let y1, let x2, let y2) = curve else { return writeCompact(curve.json) }
        append("{\"bezier\":[")
        writeDouble(x1)
        append(UInt8(ascii: ","))
        writeDouble(y1)
        append(UInt8(ascii: ","))
        writeDouble(x2)
        append(UInt8(ascii: ","))
        writeDouble(y2)
        append("]}")
    }
}
