import SeededRandom
import Testing

@testable import SegueCore

/// The frame loop's direct tick encoder writes exactly what the generic serializer writes.
@Suite struct TickEncodingTests {
    @Test func directEncodingMatchesTheJSONTreeOverRandomTicks() {
        var g = SplitMix64(seed: 7)
        func double() -> Double {
            switch g.next() % 6 {
            case 0: 0
            case 1: 1
            case 2: -0.0
            case 3: Double(Int64(bitPattern: g.next() % 2000) - 1000) / 7
            case 4: Double(bitPattern: g.next() & 0x3FFF_FFFF_FFFF_FFFF)
            default: Double(g.next() % 1_000_000) / 1e9
            }
        }
        let names = ["main", "a.b-c_d", "x\"q\\uote", "ünï"]
        for _ in 0..<5000 {
            var from = ViewProperties()
            var to = ViewProperties()
            for v in [\ViewProperties.x, \.y, \.alpha, \.scale, \.rotation, \.rotationY, \.mask, \.anchorX, \.anchorY] {
                from[keyPath: v] = double()
                to[keyPath: v] = double()
            }
            from.z = Int(g.next() % 5) - 2
            to.z = Int(g.next() % 5) - 2
            var tick = Tick(
                navigator: names[Int(g.next() % 4)], transition: Int(g.next() % 100_000),
                operation: TransitionOperation.allCases[Int(g.next() % 4)], frame: Int64(g.next() % (1 << 40)),
                time: Int64(g.next() % (1 << 62)), phase: TransitionPhase.allCases[Int(g.next() % 6)],
                fraction: double(), progress: double(), revision: Int64(g.next() % 1_000_000),
                final: g.next() % 2 == 0, fromScreen: "s\(g.next() % 99)", toScreen: "s\(g.next() % 99)",
                views: ViewPair(from: from, to: to))
            // An interactive tick's gesture, with and without each optional member.
            if g.next() % 2 == 0 {
                let touch = g.next() % 2 == 0 ? GestureGeometry.Touch(x: double(), y: double()) : nil
                let edge = g.next() % 3 == 0 ? nil : GestureGeometry.SwipeEdge.allCases[Int(g.next() % 5)]
                tick.gesture = TickGesture(touch: touch, edge: edge, velocity: double())
            }
            // A final tick's state digest.
            if tick.final, g.next() % 2 == 0 { tick.digest = SHA256.hash([UInt8(g.next() % 256)]).hex }
            #expect(tick.encoded() == tick.json.serializedBytes())
        }
    }

    /// The frame loop's one encoder, reused across ticks of every size: each body is exactly the
    /// tick's own, whatever came before it (a long body leaves no trailing bytes behind, and names
    /// long enough to outgrow the buffer grow it).
    @Test func oneEncoderReusedAcrossTicksWritesEachTickExactly() {
        let encoder = TickEncoder()
        let long = String(repeating: "\u{1}\"", count: 700)
        var v = ViewProperties()
        v.x = 0.123456789012345
        v.rotation = -1.7976931348623157e308
        v.anchorY = .leastNonzeroMagnitude  // 5e-324, the smallest subnormal
        for name in ["a", long, "main", "ünï" + long, "b"] {
            let tick = Tick(
                navigator: name, transition: .max, operation: .dismiss, frame: .max, time: .min, phase: .cancelling,
                fraction: 0.1 + 0.2, progress: -2.2250738585072014e-308, revision: .max, final: name.count % 2 == 0,
                fromScreen: name, toScreen: String(name.reversed()), views: ViewPair(from: v, to: ViewProperties()))
            encoder.encode(tick)
            #expect(Array(encoder.body) == tick.json.serializedBytes())
        }
    }
}

/// The parts the tick writer spells by itself: the frame's clock text copied between the ticks of a
/// frame, and the operation and phase names.
@Suite struct TickEncoderReuseTests {
    static func tick(
        frame: Int64, time: Int64, delay: Int64, operation: TransitionOperation = .push,
        phase: TransitionPhase = .animating
    ) -> Tick {
        var tick = Tick(
            navigator: "n\(frame)", transition: 3, operation: operation, frame: frame, time: time, phase: phase,
            fraction: 0.25, progress: 0.125, revision: 9, final: false, fromScreen: "a", toScreen: "b",
            views: ViewPair(from: ViewProperties(), to: ViewProperties()))
        tick.presentationDelay = delay
        return tick
    }

    /// One encoder across ticks that share all, some or none of frame, time and presentAt.
    @Test func frameTextFollowsEveryNumber() {
        let encoder = TickEncoder()
        let ticks = [
            Self.tick(frame: 10, time: 1_000, delay: 0), Self.tick(frame: 10, time: 1_000, delay: 0),
            Self.tick(frame: 11, time: 1_000, delay: 0), Self.tick(frame: 11, time: 2_000, delay: 0),
            Self.tick(frame: 11, time: 2_000, delay: 5), Self.tick(frame: 11, time: 2_000, delay: 5),
            Self.tick(frame: 10, time: 1_000, delay: 0), Self.tick(frame: -1, time: .min, delay: 0),
            Self.tick(frame: 0, time: 0, delay: 0), Self.tick(frame: 0, time: 0, delay: 0),
        ]
        for tick in ticks {
            encoder.encode(tick)
            #expect(Array(encoder.body) == tick.json.serializedBytes())
        }
    }

    static let names = TransitionOperation.allCases.flatMap { o in TransitionPhase.allCases.map { (o, $0) } }

    @Test(arguments: names)
    func operationAndPhaseAreSpelledAsTheirRawValues(operation: TransitionOperation, phase: TransitionPhase) {
        let tick = Self.tick(frame: 1, time: 2, delay: 3, operation: operation, phase: phase)
        #expect(tick.encoded() == tick.json.serializedBytes())
    }
}

/// A view in place but for x is written as one text: every member that rules it out does.
@Suite struct TickViewTextTests {
    static let views: [ViewProperties] = {
        var inPlace = ViewProperties()
        inPlace.x = -0.3
        var views = [inPlace]
        for z in [-1, 1, 2] {
            var v = inPlace
            v.z = z
            views.append(v)
        }
        let members: [WritableKeyPath<ViewProperties, Double>] = [
            \.y, \.alpha, \.scale, \.rotation, \.rotationY, \.mask, \.anchorX, \.anchorY,
        ]
        for member in members {
            for value in [-0.0, 0.0, 0.5, 1, 0.25] {
                var v = inPlace
                v[keyPath: member] = value
                views.append(v)
            }
        }
        return views
    }()

    @Test(arguments: views)
    func viewsAreWrittenAsTheTreeIs(view: ViewProperties) {
        let tick = Tick(
            navigator: "n", transition: 1, operation: .push, frame: 2, time: 3, phase: .animating, fraction: 0.5,
            progress: 0.5, revision: 4, final: false, fromScreen: "a", toScreen: "b",
            views: ViewPair(from: view, to: view))
        #expect(tick.encoded() == tick.json.serializedBytes())
    }
}
