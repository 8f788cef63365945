import SeededRandom
import Testing

@testable import SegueCore

/// Frame batches carry the very ticks of `tick/<navigator>/`: written and read back, every tick is
/// equal to the one written, member for member (doubles bit for bit).
@Suite struct TickBatchTests {
    /// A random tick of `frame`, with every optional member present or not.
    static func randomTick(_ g: inout SplitMix64, frame: Int64, time: Int64, delay: Int64) -> Tick {
        func double(_ g: inout SplitMix64) -> Double {
            switch g.next() % 5 {
            case 0: -0.0
            case 1: .nan
            case 2: Double(bitPattern: g.next())
            case 3: .infinity
            default: Double(g.next() % 1_000_000) / 1e6
            }
        }
        var from = ViewProperties()
        var to = ViewProperties()
        for v in [\ViewProperties.x, \.y, \.alpha, \.scale, \.rotation, \.rotationY, \.mask, \.anchorX, \.anchorY] {
            from[keyPath: v] = double(&g)
            to[keyPath: v] = double(&g)
        }
        from.z = Int(Int32.min) + Int(g.next() % 3)
        to.z = Int(Int32.max) - Int(g.next() % 3)
        let names = ["main", "a.b-c_d", "ünï", String(repeating: "n", count: 64), ""]
        var tick = Tick(
            navigator: names[Int(g.next() % 5)], transition: Int(bitPattern: UInt(g.next())),
            operation: TickBatch.operations[Int(g.next() % 4)], frame: frame, time: time,
            phase: TickBatch.phases[Int(g.next() % 7)], fraction: double(&g), progress: double(&g),
            revision: Int64(bitPattern: g.next()), final: g.next() % 2 == 0, fromScreen: "s\(g.next() % 99)",
            toScreen: names[Int(g.next() % 5)], views: ViewPair(from: from, to: to))
        tick.presentationDelay = delay
        if g.next() % 2 == 0 {
            let touch = g.next() % 2 == 0 ? GestureGeometry.Touch(x: double(&g), y: double(&g)) : nil
            let edge = g.next() % 3 == 0 ? nil : TickBatch.edges[Int(g.next() % 5)]
            tick.gesture = TickGesture(touch: touch, edge: edge, velocity: double(&g))
        }
        if tick.final, g.next() % 2 == 0 { tick.digest = SHA256.hash([UInt8(g.next() % 256)]).hex }
        return tick
    }

    /// Compared as their JSON text and their doubles' bits: NaN is not equal to itself.
    static func same(_ a: Tick, _ b: Tick) -> Bool {
        func bits(_ t: Tick) -> [UInt64] {
            var out = [t.fraction, t.progress].map(\.bitPattern)
            for v in [t.views.from, t.views.to] {
                out += [v.x, v.y, v.alpha, v.scale, v.rotation, v.rotationY, v.mask, v.anchorX, v.anchorY].map(
                    \.bitPattern)
            }
            if let g = t.gesture { out += [g.velocity, g.touch?.x ?? 0, g.touch?.y ?? 0].map(\.bitPattern) }
            return out
        }
        return a.encoded() == b.encoded() && bits(a) == bits(b) && a.presentAt == b.presentAt
    }

    /// Batches of 0 to 40 random ticks through one reused writer: each reads back as written.
    @Test func batchesReadBackAsWritten() throws {
        var g = SplitMix64(seed: 11)
        let writer = TickBatchWriter()
        for round in 0..<300 {
            let frame = Int64(bitPattern: g.next()) >> Int64(g.next() % 64)
            let time = Int64(bitPattern: g.next())
            let delay = Int64(g.next() % 100_000_000)
            let ticks = (0..<Int(g.next() % 41)).map { _ in Self.randomTick(&g, frame: frame, time: time, delay: delay)
            }
            for tick in ticks {
                #expect(!writer.isOtherFrame(tick))
                writer.append(tick)
            }
            var sent: [[UInt8]] = []
            writer.flush { sent.append(Array($0)) }
            #expect(writer.isEmpty)
            guard !ticks.isEmpty else {
                #expect(sent.isEmpty, "an empty batch is not sent")
                continue
            }
            #expect(sent.count == 1)
            let batch = try TickBatch(decoding: sent[0])
            #expect(batch.frame == frame && batch.time == time && batch.presentAt == time &+ delay)
            #expect(batch.ticks.count == ticks.count)
            for (read, written) in zip(batch.ticks, ticks) {
                #expect(Self.same(read, written), "round \(round)")
            }
        }
    }

    /// A tick of another frame, time or presentation delay is another batch.
    @Test(arguments: [(1, 0, 0), (0, 1, 0), (0, 0, 1)])
    func anotherFrameIsAnotherBatch(frame: Int64, time: Int64, delay: Int64) {
        var g = SplitMix64(seed: 3)
        let writer = TickBatchWriter()
        writer.append(Self.randomTick(&g, frame: 5, time: 500, delay: 7))
        #expect(!writer.isOtherFrame(Self.randomTick(&g, frame: 5, time: 500, delay: 7)))
        #expect(writer.isOtherFrame(Self.randomTick(&g, frame: 5 + frame, time: 500 + time, delay: 7 + delay)))
    }

    /// A full batch says so before it passes `flushBytes` by more than one tick.
    @Test func aBatchFillsAtItsLimit() {
        var g = SplitMix64(seed: 5)
        let writer = TickBatchWriter()
        var count = 0
        while !writer.isFull {
            writer.append(Self.randomTick(&g, frame: 1, time: 2, delay: 0))
            count += 1
        }
        var size = 0
        writer.flush { size = $0.count }
        #expect(count > 100 && size >= TickBatchWriter.flushBytes && size < TickBatchWriter.flushBytes + 1024)
    }

    /// Bodies a reader must refuse, each with a sentence naming where it went wrong.
    @Test(
        arguments: [
            ([], "ends at byte 0"),
            ([2] + [UInt8](repeating: 0, count: 28), "version 2 is not known"),
            ([1] + [UInt8](repeating: 0, count: 20), "ends at byte 21"),
            ([1] + [UInt8](repeating: 0, count: 24) + [1, 0, 0, 0], "ends at byte 29"),
            ([1] + [UInt8](repeating: 0, count: 28) + [9], "1 bytes after its 0 ticks"),
            ([1] + [UInt8](repeating: 0, count: 24) + [1, 0, 0, 0, 1, 0, 0xFF], "not UTF-8 at byte 31"),
            (
                [1] + [UInt8](repeating: 0, count: 24) + [1, 0, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 8) + [4],
                "operation code 4 at byte 39"
            ),
        ] as [([UInt8], String)])
    func malformedBodiesAreRefused(body: [UInt8], message: String) {
        #expect {
            try TickBatch(decoding: body)
        } throws: { error in
            guard let error = error as? CoreError else { return false }
            return error.code == .badRequest && error.message.contains(message)
        }
    }
}
