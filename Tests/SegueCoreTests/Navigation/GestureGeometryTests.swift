import Testing

@testable import SegueCore

/// Gesture geometry: `touch`, `edge` and `time` on `begin`/`update`, recorded in the events, carried in
/// the interactive phase's ticks, and a swipe's edge deciding where a preset slides.
@Suite struct GestureGeometryTests {
    typealias F = Fixture
    typealias G = GestureGeometry

    /// Home → List committed, at frame 1.
    var twoDeep: NavigatorState {
        F.given(F.log([(.push(ScreenSpec(name: "List"), TransitionOptions(animated: false)), 1)]))
    }

    // MARK: Requests

    struct Parse: Sendable, CustomTestStringConvertible {
        let args: JSONObject
        let want: G?
        let code: ErrorCode?
        var testDescription: String { JSON.object(args).serialized() }
    }

    static let parses: [Parse] = [
        Parse(args: [:], want: G.none, code: nil),
        Parse(
            args: ["touch": ["x": 0.1, "y": 0.9], "edge": "left", "time": 123_456_789],
            want: G(touch: .init(x: 0.1, y: 0.9), edge: .left, time: 123_456_789), code: nil),
        // Past the container's edge is at the edge, as percent is clamped.
        Parse(args: ["touch": ["x": -0.5, "y": 1.5]], want: G(touch: .init(x: 0, y: 1)), code: nil),
        Parse(args: ["edge": "none"], want: G(edge: G.SwipeEdge.none), code: nil),
        Parse(args: ["touch": ["x": 0.5]], want: nil, code: .badRequest),
        Parse(args: ["touch": ["x": 0.5, "y": 0.5, "z": 0]], want: nil, code: .badRequest),
        Parse(args: ["touch": [0.5, 0.5]], want: nil, code: .badRequest),
        Parse(args: ["touch": ["x": "a", "y": 0.5]], want: nil, code: .badRequest),
        Parse(args: ["edge": "diagonal"], want: nil, code: .invalidArgument),
        Parse(args: ["edge": 1], want: nil, code: .badRequest),
        Parse(args: ["time": -1], want: nil, code: .invalidArgument),
        Parse(args: ["time": 1.5], want: nil, code: .badRequest),
    ]

    @Test(arguments: parses)
    func beginAndUpdateReadGeometryAlike(_ parse: Parse) throws {
        var update = parse.args
        update["percent"] = .double(0.5)
        var begin = parse.args
        begin["operation"] = "pop"
        for (name, args) in [("update", update), ("begin", begin)] {
            do {
                let command = try NavigationCommand(name: name, arguments: args)
                #expect(parse.code == nil)
                switch command {
                case .update(_, _, let geometry), .begin(_, _, let geometry): #expect(geometry == parse.want)
                default: Issue.record("\(name) parsed as \(command)")
                }
                // The request form reads back to the same command (queued commands are logged this way).
                #expect(try NavigationCommand(name: name, arguments: command.arguments) == command)
            } catch {
                #expect(error.code == parse.code, "\(name): \(error.message)")
            }
        }
    }

    // MARK: Events and ticks

    @Test func geometryIsRecordedInTheEventsAndCarriedInInteractiveTicks() throws {
        let began = F.when(
            twoDeep, .begin(.pop, animator: nil, geometry: G(touch: .init(x: 0.02, y: 0.4), edge: .left, time: 1000)),
            at: 10)
        let started = try #require(began.events.first)
        guard case .started(let s) = started.kind else {
            Issue.record("not started: \(started)")
            return
        }
        #expect(s.geometry == G(touch: .init(x: 0.02, y: 0.4), edge: .left, time: 1000))
        #expect(started.data["clientTime"] == 1000)
        #expect(started.data["edge"] == "left")
        let tick0 = try #require(Navigator.tick(began.state, frame: 10))
        #expect(tick0.gesture == TickGesture(touch: .init(x: 0.02, y: 0.4), edge: .left, velocity: 0))

        let moved = F.when(
            began.state, .update(percent: 0.3, velocity: 0.9, geometry: G(touch: .init(x: 0.3, y: 0.45), time: 2000)),
            at: 12)
        #expect(
            moved.events == [
                F.event(
                    .updated(
                        transition: 2, percent: 0.3, velocity: 0.9,
                        geometry: G(touch: .init(x: 0.3, y: 0.45), time: 2000)), at: 12)
            ])
        // The edge given at begin stays; an update without a touch leaves the last one in place.
        let still = F.when(moved.state, .update(percent: 0.35, velocity: 0.5), at: 13)
        let tick = try #require(Navigator.tick(still.state, frame: 14))
        #expect(tick.gesture == TickGesture(touch: .init(x: 0.3, y: 0.45), edge: .left, velocity: 0.5))
        #expect(tick.json["gesture"] == ["touch": ["x": 0.3, "y": 0.45], "edge": "left", "velocity": 0.5])

        // Once released, the clock drives it: no gesture on finishing ticks nor on the final one.
        let released = F.when(still.state, .finish(velocity: nil, completionSpeed: 1, completionCurve: .linear), at: 14)
        let finishing = try #require(Navigator.tick(released.state, frame: 15))
        #expect(finishing.phase == .finishing && finishing.gesture == nil)
        #expect(finishing.json["gesture"] == nil)

        // Every one of these events folds back from its wire form.
        for event in began.events + moved.events + still.events {
            let record = event.record(seq: 1, navigator: "main", revision: 1, time: 0)
            #expect(try NavigationEvent(record: EventRecord(json: record.json)) == event)
            #expect(record.encoded() == record.json.serializedBytes())
        }
    }

    @Test func anInterruptRecordsWhereTheFingerCaughtTheAnimation() throws {
        let pushed = F.when(twoDeep, .push(ScreenSpec(name: "Next"), .standard), at: 20).state
        let caught = F.when(
            pushed, .begin(nil, animator: nil, geometry: G(touch: .init(x: 0.6, y: 0.5), edge: .right)), at: 25)
        guard case .interrupted(_, _, _, let geometry)? = caught.events.last?.kind else {
            Issue.record("\(caught.events)")
            return
        }
        #expect(geometry == G(touch: .init(x: 0.6, y: 0.5), edge: .right))
        #expect(Navigator.tick(caught.state, frame: 25)?.gesture?.touch == .init(x: 0.6, y: 0.5))
        let event = try #require(caught.events.last)
        #expect(try NavigationEvent(record: event.record(seq: 1, navigator: "main", revision: 1, time: 0)) == event)
    }

    // MARK: The swipe's edge and the slide's direction

    struct EdgeCase: Sendable, CustomTestStringConvertible {
        let start: InteractiveStart
        let swipe: G.SwipeEdge?
        let animator: JSON?
        let edge: Edge?
        var testDescription: String {
            "\(start.operation.rawValue) swiped from \(swipe?.rawValue ?? "-") with \(animator?.serialized() ?? "no animator") → \(edge?.rawValue ?? "default")"
        }
    }

    static let edges: [EdgeCase] = [
        // iOS's back swipe from the left: the popped screen leaves to the right.
        EdgeCase(start: .pop, swipe: .left, animator: nil, edge: .right),
        // A right-to-left layout swipes back from the right: the popped screen leaves to the left.
        EdgeCase(start: .pop, swipe: .right, animator: nil, edge: .left),
        EdgeCase(start: .pop, swipe: G.SwipeEdge.none, animator: nil, edge: nil),
        EdgeCase(start: .pop, swipe: nil, animator: nil, edge: nil),
        // A screen pulled in from an edge follows the finger in from that edge.
        EdgeCase(start: .push(ScreenSpec(name: "N")), swipe: .right, animator: nil, edge: .right),
        EdgeCase(start: .push(ScreenSpec(name: "N")), swipe: .bottom, animator: nil, edge: .bottom),
        EdgeCase(start: .present(ScreenSpec(name: "M")), swipe: .left, animator: nil, edge: .left),
        // A preset's own edge gives way to the finger's; the command's explicit edge does not.
        EdgeCase(start: .pop, swipe: .right, animator: ["preset": "slideFromBottom.pop"], edge: .left),
        EdgeCase(start: .pop, swipe: .right, animator: ["edge": "top"], edge: .top),
    ]

    @Test(arguments: edges)
    func aSwipesEdgeDecidesWhereTheViewsSlide(_ c: EdgeCase) throws {
        let r = F.when(twoDeep, .begin(c.start, animator: c.animator, geometry: G(edge: c.swipe)), at: 10)
        #expect(r.error == nil)
        let t = try #require(r.state.transition)
        #expect(t.animator.edge == c.edge)
        // The direction shows in the views: the moving view heads for the animator's edge.
        let direction = t.animator.resolvedEdge(for: t.operation).direction
        let views = try #require(
            Navigator.tick(F.when(r.state, .update(percent: 0.5, velocity: nil), at: 11).state, frame: 11)?.views)
        let moving = t.operation == .pop || t.operation == .dismiss ? views.from : views.to
        #expect(moving.x * direction.x + moving.y * direction.y > 0, "\(views)")
    }
}
