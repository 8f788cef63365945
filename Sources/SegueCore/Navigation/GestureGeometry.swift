/// Where the finger is, as a `begin` or `update` reports it: Android's `BackEvent` (touchX/touchY,
/// swipeEdge, frameTimeMillis), so a frontend can tilt or shrink a card the way predictive back does.
///
/// Every member is optional; what a client leaves out is unknown, never zero.
public struct GestureGeometry: Equatable, Sendable {
    /// The touch point in fractions of the container (0,0 top left; 1,1 bottom right).
    public var touch: Touch?
    /// The edge the swipe started from; `none` for a gesture that did not start at an edge (a button).
    public var edge: SwipeEdge?
    /// The input event's time on the client's own clock, in nanoseconds.
    public var time: Int64?

    public init(touch: Touch? = nil, edge: SwipeEdge? = nil, time: Int64? = nil) {
        self.touch = touch
        self.edge = edge
        self.time = time
    }

    public static let none = GestureGeometry()

    /// The key of `time` in an event's `data`, where the envelope's own `time` is the daemon's.
    static let eventTimeKey = "clientTime"

    public var isEmpty: Bool { touch == nil && edge == nil && time == nil }

    public struct Touch: Equatable, Sendable {
        public var x: Double
        public var y: Double

        public init(x: Double, y: Double) {
            self.x = x
            self.y = y
        }

        var json: JSON { ["x": .double(x), "y": .double(y)] }

        /// `{"x": …, "y": …}`, both required, nothing else.
        init(json: JSON, path: String) throws(CoreError) {
            var t = try Arguments(json, path: path)
            x = try t.required("x") { (a: inout Arguments, k) throws(CoreError) in try a.double(k) }
            y = try t.required("y") { (a: inout Arguments, k) throws(CoreError) in try a.double(k) }
            try t.rejectUnknown()
        }
    }

    /// Android's `BackEvent.swipeEdge` with the four edges of a container.
    public enum SwipeEdge: String, Equatable, Sendable, CaseIterable {
        case left, right, top, bottom, none

        /// The edge an animator should move views along for `operation` begun by a swipe from here:
        /// a pushed or presented screen follows the finger in from the swipe's edge; a popped or
        /// dismissed one leaves toward the opposite edge, where the finger is going.
        func animatorEdge(for operation: TransitionOperation) -> Edge? {
            let from: Edge
            switch self {
            case .left: from = .left
            case .right: from = .right
            case .top: from = .top
            case .bottom: from = .bottom
            case .none: return nil
            }
            switch operation {
            case .push, .present: return from
            case .pop, .dismiss: return from.opposite
            }
        }
    }
}

extension Edge {
    var opposite: Edge {
        switch self {
        case .left: .right
        case .right: .left
        case .top: .bottom
        case .bottom: .top
        }
    }
}

extension GestureGeometry {
    /// The members `touch`, `edge` and the time under `timeKey` (`time` in requests, `clientTime` in
    /// events, whose own `time` is the daemon's). A touch outside [0, 1] is clamped, as `percent` is: a
    /// finger dragged past the container's edge is at that edge.
    init(reading args: inout Arguments, timeKey: String = "time") throws(CoreError) {
        self.init()
        if let raw = args.raw("touch") {
            let t = try Touch(json: raw, path: args.name("touch"))
            touch = Touch(x: min(1, max(0, t.x)), y: min(1, max(0, t.y)))
        }
        if let name = try args.string("edge") {
            guard let edge = SwipeEdge(rawValue: name) else {
                throw .notAllowed(
                    args.name("edge"), expected: "one of left, right, top, bottom, none", got: .string(name))
            }
            self.edge = edge
        }
        time = try args.int(timeKey, in: 0...Int64.max)
    }

    /// The members as `init(reading:timeKey:)` reads them.
    func write(into o: inout JSONObject, timeKey: String = "time") {
        if let touch { o["touch"] = touch.json }
        if let edge { o["edge"] = .string(edge.rawValue) }
        if let time { o[timeKey] = .int(time) }
    }
}
