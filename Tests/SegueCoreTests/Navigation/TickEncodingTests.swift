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
            let tick = Tick(
                navigator: names[Int(g.next() % 4)], transition: Int(g.next() % 100_000),
                operation: TransitionOperation.allCases[Int(g.next() % 4)], frame: Int64(g.next() % (1 << 40)),
                time: Int64(g.next() % (1 << 62)), phase: TransitionPhase.allCases[Int(g.next() % 6)],
                fraction: double(), progress: double(), revision: Int64(g.next() % 1_000_000),
                final: g.next() % 2 == 0, fromScreen: "s\(g.next() % 99)", toScreen: "s\(g.next() % 99)",
                views: ViewPair(from: from, to: to))
            #expect(tick.encoded() == tick.json.serializedBytes())
        }
    }
}
