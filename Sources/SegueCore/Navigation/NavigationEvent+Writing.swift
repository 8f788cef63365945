extension NavigationEvent {
    /// Writes `data` straight into `w`: exactly `writeCompact(.object(data))`, without the tree.
    ///
    /// The daemon encodes every event it appends, and building `data` as a `JSONObject` (an array of
    /// members, a box per nested object, a copy of every screen) cost about as much as writing it
    /// (docs/performance.md, "A relaxed push/pop, stage by stage"). The members come in the order
    /// `data` builds them; `EventCodingTests.directEncodingIsTheSerializedJSON` holds the two together
    /// for every kind.
    /// Rare shapes (a navigator's config, keyframes, springs, a queued request) still go through
    /// their trees: only the per-command events are worth a second spelling.
    func writeData(_ w: inout JSONSerializer) {
        switch kind {
        case .created, .queued, .dropped, .reversed, .paused, .seeked, .resumed:
            w.writeCompact(.object(data))
        case .closed:
            w.append("{}")
        case .started(let s):
            w.openTransition(s.transition)
            w.writeMember(",\"operation\":", s.operation.rawValue)
            w.writeMember(",\"from\":", s.from)
            w.writeMember(",\"to\":", s.to)
            w.writeMember(",\"popped\":", s.popped)
            w.writeMember(",\"stack\":", s.stack)
            w.writeMember(",\"modals\":", s.modals)
            w.append(",\"animator\":")
            w.writeAnimator(s.animator)
            w.append(s.animated ? ",\"animated\":true" : ",\"animated\":false")
            w.append(s.interactive ? ",\"interactive\":true" : ",\"interactive\":false")
            w.append(",\"nextScreen\":")
            w.writeInt(Int64(s.nextScreen))
            w.writeMember(",\"owner\":", s.owner)
            w.writeGeometry(s.geometry)
            w.append(UInt8(ascii: "}"))
        case .updated(let t, let percent, let velocity, let geometry, let estimated):
            w.openTransition(t)
            w.writeMember(",\"percent\":", percent)
            w.writeMember(",\"velocity\":", velocity)
            if estimated { w.append(",\"estimated\":true") }
            w.writeGeometry(geometry)
            w.append(UInt8(ascii: "}"))
        case .interrupted(let t, let fraction, let owner, let geometry):
            w.openTransition(t)
            w.writeMember(",\"fraction\":", fraction)
            w.writeMember(",\"owner\":", owner)
            w.writeGeometry(geometry)
            w.append(UInt8(ascii: "}"))
        case .finishing(let t, let fraction, let velocity, let speed, let curve):
            w.openCompletion(t, fraction, speed, curve)
            if let velocity { w.writeMember(",\"velocity\":", velocity) }
            w.append(UInt8(ascii: "}"))
        case .cancelling(let t, let fraction, let speed, let curve, let reason, let velocity):
            w.openCompletion(t, fraction, speed, curve)
            w.writeMember(",\"reason\":", reason.rawValue)
            if let velocity { w.writeMember(",\"velocity\":", velocity) }
            w.append(UInt8(ascii: "}"))
        case .completed(let t):
            w.openTransition(t)
            w.append(UInt8(ascii: "}"))
        case .cancelled(let t, let reason):
            w.openTransition(t)
            w.writeMember(",\"reason\":", reason.rawValue)
            w.append(UInt8(ascii: "}"))
        }
    }
}

extension JSONSerializer {
    /// `{"transition":t`, the object left open: every transition event's first member.
    fileprivate mutating func openTransition(_ transition: Int) {
        append("{\"transition\":")
        writeInt(Int64(transition))
    }

    /// The members a finishing and a cancelling transition share, the object left open.
    fileprivate mutating func openCompletion(
        _ transition: Int, _ fraction: Double, _ speed: Double, _ curve: TimingCurve
    ) {
        openTransition(transition)
        writeMember(",\"fraction\":", fraction)
        writeMember(",\"completionSpeed\":", speed)
        append(",\"completionCurve\":")
        writeCurve(curve)
    }

    /// The gesture's members, as `data` adds them: nothing for a gesture without geometry.
    fileprivate mutating func writeGeometry(_ geometry: GestureGeometry) {
        guard !geometry.isEmpty else { return }
        var o = JSONObject()
        geometry.write(into: &o, timeKey: GestureGeometry.eventTimeKey)
        for (key, value) in o.members {
            append(UInt8(ascii: ","))
            writeString(key)
            append(UInt8(ascii: ":"))
            writeCompact(value)
        }
    }

    /// `prefix` is the member's separator, key and colon, spelled out: `,"percent":`.
    fileprivate mutating func writeMember(_ prefix: StaticString, _ value: Double) {
        append(prefix)
        writeDouble(value)
    }

    /// Nothing when `value` is nil, as `data` leaves optional members out.
    fileprivate mutating func writeMember(_ prefix: StaticString, _ value: String?) {
        guard let value else { return }
        append(prefix)
        writeString(value)
    }

    fileprivate mutating func writeMember(_ prefix: StaticString, _ screen: Screen) {
        append(prefix)
        writeScreen(screen)
    }

    fileprivate mutating func writeMember(_ prefix: StaticString, _ screens: [Screen]) {
        append(prefix)
        append(UInt8(ascii: "["))
        for (index, screen) in screens.enumerated() {
            if index > 0 { append(UInt8(ascii: ",")) }
            writeScreen(screen)
        }
        append(UInt8(ascii: "]"))
    }

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
