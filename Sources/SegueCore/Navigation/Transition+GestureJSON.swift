/// The gesture's, a pause's and a reversal's state in a snapshot: written only when there is some, so the snapshot of a
/// transition no finger touched reads as it always has.
extension Transition {
    func writeGesture(into o: inout JSONObject) {
        if let touch { o["touch"] = touch.json }
        if let swipeEdge { o["swipeEdge"] = .string(swipeEdge.rawValue) }
        if velocityGiven { o["velocityGiven"] = true }
        if let pausedFrom { o["pausedFrom"] = .string(pausedFrom.rawValue) }
        if let turn = segment.retarget {
            let velocity = turn.target >= 1 ? turn.velocity : -turn.velocity
            o["retarget"] = [.double(turn.start), .double(turn.target), .double(velocity), .double(turn.cruise)]
        }
        if !samples.isEmpty {
            o["samples"] = .array(
                samples.map { [.int($0.frame), $0.clientTime.map(JSON.int) ?? .null, .double($0.percent)] })
        }
    }

    mutating func readGesture(_ a: inout Arguments) throws(CoreError) {
        if let raw = a.raw("touch") { touch = try GestureGeometry.Touch(json: raw, path: a.name("touch")) }
        if let edge = try a.string("swipeEdge") {
            guard let value = GestureGeometry.SwipeEdge(rawValue: edge) else {
                throw CoreError(.internal, "snapshot.transition.swipeEdge \"\(edge.prefix(16))\" is not an edge.")
            }
            swipeEdge = value
        }
        velocityGiven = try a.bool("velocityGiven") ?? false
        if let phase = try a.string("pausedFrom") {
            guard let value = TransitionPhase(rawValue: phase) else {
                throw CoreError(.internal, "snapshot.transition.pausedFrom \"\(phase.prefix(16))\" is not a phase.")
            }
            pausedFrom = value
        }
        if let turn = try a.array("retarget") {
            let v = turn.compactMap(\.doubleValue)
            guard v.count == 4, turn.count == 4 else {
                throw CoreError(.internal, "snapshot.transition.retarget must be four numbers.")
            }
            segment.retarget = Retarget(start: v[0], target: v[1], velocity: v[2], cruise: v[3])
        }
        samples = []
        for item in try a.array("samples") ?? [] {
            guard case .array(let v) = item, v.count == 3, let frame = v[0].int64Value, let percent = v[2].doubleValue
            else { throw CoreError(.internal, "snapshot.transition.samples holds a malformed point.") }
            samples.append(GestureSample(frame: frame, clientTime: v[1].int64Value, percent: percent))
        }
    }
}
