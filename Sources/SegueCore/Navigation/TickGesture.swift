/// A tick's `gesture`: where the finger is while a transition is interactive, so a frontend can tilt
/// or shrink a card as Android's predictive back does, from the tick alone.
package struct TickGesture: Equatable, Sendable {
    /// The last touch point reported, in container fractions; `nil` if the client never sent one.
    package var touch: GestureGeometry.Touch?
    /// The swipe's edge as last reported; `nil` if the client never sent one.
    package var edge: GestureGeometry.SwipeEdge?
    /// The last update's velocity (given or estimated), fraction/s, + toward completion.
    package var velocity: Double

    package init(touch: GestureGeometry.Touch?, edge: GestureGeometry.SwipeEdge?, velocity: Double) {
        self.touch = touch
        self.edge = edge
        self.velocity = velocity
    }

    var json: JSON {
        var o = JSONObject()
        if let touch { o["touch"] = touch.json }
        if let edge { o["edge"] = .string(edge.rawValue) }
        o["velocity"] = .double(velocity)
        return .object(o)
    }
}

extension TickWriter {
    /// `,"gesture":{...}`, exactly as `TickGesture.json` serializes.
    mutating func write(_ gesture: TickGesture) {
        append(",\"gesture\":{")
        if let touch = gesture.touch {
            append("\"touch\":{\"x\":")
            writeTickDouble(touch.x)
            append(",\"y\":")
            writeTickDouble(touch.y)
            append("},")
        }
        if let edge = gesture.edge {
            append("\"edge\":")
            writeString(edge.rawValue)
            append(",")
        }
        append("\"velocity\":")
        writeTickDouble(gesture.velocity)
        append("}")
    }
}
