import Testing

@testable import SegueCore

/// Every event kind survives its wire form; unknown types and versions are errors, not crashes.
@Suite struct EventCodingTests {
    typealias F = Fixture
    static let samples: [NavigationEvent] = {
        let a = F.screen(1, "Home")
        let b = Screen(id: "s2", name: "Detail", params: ["item": 42, "title": "Ünïcode"])
        return [
            F.created(
                F.config {
                    $0.busy = .queue
                    $0.container = ContainerSize(width: 390, height: 844)
                }),
            F.event(.closed, at: 3),
            F.started(1, .push, from: a, to: b, stack: [a, b], next: 3, frame: 4, command: "req-1"),
            F.started(
                2, .dismiss, from: b, to: a, popped: [b], stack: [a], interactive: true, owner: "pan", next: 3, frame: 5
            ),
            // Animators and curves in every shape the daemon writes without a tree (edge, bezier,
            // point offsets, fade) and the ones it still writes through one (keyframes, springs).
            F.started(
                3, .push, from: a, to: b, stack: [a, b],
                animator: Animator(
                    style: .cover, edge: .left, duration: 0.123456789,
                    curve: .bezier(x1: 0.1, y1: -0.25, x2: 0.7, y2: 1.3),
                    options: StyleOptions(
                        parallax: 0, scale: 1e-7, offsetX: .points(-55), offsetY: .fraction(0.5), fade: true)),
                animated: false, next: 3, frame: 4),
            F.started(
                4, .present, from: b, to: Screen(id: "s3", name: "Sheet", params: ["nested": ["a": [1, 2.5, nil]]]),
                stack: [a, b], modals: [Screen(id: "s3", name: "Sheet", params: [:])],
                animator: Animator(
                    style: .keyframes(
                        Keyframes(
                            from: ViewKeyframes(z: 0, tracks: [.alpha: [Keyframe(time: 0.5, value: 0.25)]]),
                            to: ViewKeyframes(z: 1, anchorX: 0, anchorY: 1))),
                    curve: .spring(.dampingRatio(ratio: 0.8, initialVelocity: 0.3))),
                owner: "\"pan\" \n", next: 4, frame: 4),
            F.started(
                5, .pop, from: b, to: a, popped: [b], stack: [a],
                animator: Animator(style: .zoom, curve: .spring(.response(response: 0.55, dampingFraction: 1))),
                next: 3, frame: 4),
            F.event(.updated(transition: 2, percent: 0.25, velocity: -1.5), at: 6),
            F.event(.updated(transition: 2, percent: 1.0 / 3.0, velocity: 0), at: 6),
            F.event(.interrupted(transition: 2, fraction: 1, owner: "pan"), at: 7),
            F.event(
                .finishing(
                    transition: 2, fraction: 0.7, velocity: nil, completionSpeed: 0.5,
                    completionCurve: .bezier(x1: 0, y1: 0, x2: 1, y2: 1)), at: 8),
            F.event(
                .cancelling(
                    transition: 2, fraction: 0.1, completionSpeed: 2,
                    completionCurve: .spring(.physical(mass: 1, stiffness: 300, damping: 20, initialVelocity: 0)),
                    reason: .requested), at: 9),
            F.event(.interrupted(transition: 2, fraction: 0.3333333333333333, owner: nil), at: 7),
            F.event(
                .finishing(
                    transition: 2, fraction: 0.5, velocity: 2, completionSpeed: 1.5, completionCurve: .easeInOut), at: 8
            ),
            F.event(
                .cancelling(
                    transition: 2, fraction: 0.5, completionSpeed: 1, completionCurve: .linear, reason: .timeout), at: 9
            ),
            F.event(.completed(transition: 1), at: 10),
            F.event(.cancelled(transition: 2, reason: .recovery), at: 11),
            F.event(
                .queued(
                    request: .push(ScreenSpec(name: "Next", params: ["k": "v"]), TransitionOptions(animated: false)),
                    position: 2, transition: 4), at: 12, command: "q"),
            F.event(
                .queued(
                    request: .setStack([.id("s1"), .idOrName("X"), .new(ScreenSpec(name: "Y"))], .standard),
                    position: 1,
                    transition: nil), at: 12),
            F.event(
                .dropped(request: .pop(.standard), code: .cannotPopRoot, message: "at root", transition: 4), at: 13),
            F.event(
                .dropped(request: .pop(.standard), code: .cannotPopRoot, message: "at root", transition: nil), at: 13),
            F.event(.reversed(transition: 3, fraction: 0.4, velocity: 2.857142857142857, completionSpeed: 1), at: 14),
            F.event(.paused(transition: 3, fraction: 0.25), at: 15, command: "p"),
            F.event(.seeked(transition: 3, fraction: 0.6123, scrubsLinearly: true), at: 16),
            F.event(.seeked(transition: 3, fraction: 0.5, scrubsLinearly: false), at: 16),
            F.event(.resumed(transition: 3, fraction: 0.5), at: 17),
        ]
    }()

    @Test(arguments: samples)
    func roundTripsThroughTheRecord(event: NavigationEvent) throws {
        let record = event.record(seq: 9, navigator: "main", revision: 4, time: 123)
        let back = try EventRecord(json: record.json)
        #expect(back == record)
        #expect(try NavigationEvent(record: back) == event)
    }

    /// The daemon publishes `encoded()` of the records it decides, whose `data` is written straight
    /// from the typed event (`NavigationEvent.writeData`); export and replay use `json`, built from
    /// the `data` tree: the bytes must be the same, with and without a command id, escapes in names
    /// and ids, and negative or huge numbers. A record read back (holding the tree) encodes the same.
    @Test(arguments: samples)
    func directEncodingIsTheSerializedJSON(event: NavigationEvent) throws {
        for (navigator, seq, time) in [("main", Int64(9), Int64(123)), ("n-1.x_Y", .max, -1)] {
            var record = event.record(seq: seq, navigator: navigator, revision: 4, time: time)
            #expect(record.encoded() == record.json.serializedBytes())
            record.command = "id \"quoted\" \\ \n\u{1}ü"
            #expect(record.encoded() == record.json.serializedBytes())
            record.command = nil
            #expect(record.encoded() == record.json.serializedBytes())
            // The store's data column is copied from the body: the range holds `data` exactly.
            let body = record.encodedWithData()
            #expect(Array(body.bytes[body.data]) == JSON.object(record.data).serializedBytes())
            let parsed = try EventRecord(json: JSON.parse(body.bytes))
            #expect(parsed.encoded() == body.bytes)
        }
    }

    /// What a log once accepted stays readable: a stricter check added to requests later must not
    /// run on stored events, or segued would refuse to start on an older log. These values are
    /// refused in requests but may sit in a log an earlier build wrote.
    @Test func eventsAnEarlierBuildStoredStillDecode() throws {
        let created = try NavigationEvent(
            type: "navigator.created", version: 1, frame: 0, command: nil,
            data: [
                "root": ["id": "s1", "name": "Home"],
                "config": ["animators": [["from": "Detail Screen", "animator": [:]]]], "frameRate": 60,
            ])
        guard case .created(_, let config, _) = created.kind else {
            Issue.record("not a creation")
            return
        }
        #expect(config.animators.rules.first?.from == "Detail Screen")
        let keyframes = try Animator(
            json: [
                "style": "keyframes",
                "keyframes": ["from": ["anchor": [0.5, 7]], "to": ["tracks": ["alpha": [["time": 0, "value": -5]]]]],
            ])
        guard case .keyframes(let k) = keyframes.style else {
            Issue.record("not keyframes")
            return
        }
        #expect(k.from.anchorY == 7)
    }

    @Test func unknownTypeAndVersionAreErrors() {
        #expect(throws: CoreError.self) {
            try NavigationEvent(type: "transition.exploded", version: 1, frame: 0, command: nil, data: [:])
        }
        #expect(throws: CoreError.self) {
            try NavigationEvent(type: "navigator.closed", version: 2, frame: 0, command: nil, data: [:])
        }
        #expect(throws: CoreError.self) {
            try NavigationEvent(
                type: "transition.completed", version: 1, frame: 0, command: nil, data: ["transition": "x"])
        }
        #expect(throws: CoreError.self) {
            try NavigationEvent(
                type: "transition.completed", version: 1, frame: 0, command: nil, data: ["transition": 1, "extra": 1])
        }
    }

    @Test(arguments: NavigationEvent.types)
    func everyTypeHasASample(type: String) {
        #expect(Self.samples.contains { $0.type == type })
    }
}
