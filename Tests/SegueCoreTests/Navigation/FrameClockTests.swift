import SeededRandom
import Testing

@testable import SegueCore

@Suite struct FrameClockTests {
    @Test(arguments: [
        // (rate, frame, instant)
        (60, Int64(0), Int64(0)),
        (60, 1, 16_666_666),
        (60, 2, 33_333_333),
        (60, 3, 50_000_000),
        (120, 1, 8_333_333),
        (60, 106_000_000_000, 1_766_666_666_666_666_666),  // late 2025 at 60 Hz: beyond 64-bit intermediates
        (1000, 1_764_000_000_123, 1_764_000_000_123_000_000),
    ])
    func instantIsFlooredNanoseconds(rate: Int, frame: Int64, instant: Int64) throws {
        let clock = try FrameClock(rate: rate)
        #expect(clock.instant(ofFrame: frame) == instant)
    }

    @Test(arguments: [60, 120, 30, 1, 7, 1000])
    func frameAtOrAfterIsTheFirstFrameWhoseInstantIsNotEarlier(rate: Int) throws {
        let clock = try FrameClock(rate: rate)
        var generator = SplitMix64(seed: UInt64(rate))
        for _ in 0..<2000 {
            let t = Int64(bitPattern: generator.next() % 2_000_000_000_000_000_000)
            let f = clock.frame(atOrAfter: t)
            #expect(clock.instant(ofFrame: f) >= t)
            #expect(clock.instant(ofFrame: f - 1) < t)
            let g = clock.frame(atOrBefore: t)
            #expect(clock.instant(ofFrame: g) <= t)
            #expect(clock.instant(ofFrame: g + 1) > t)
            // Instants are frame boundaries: they map to themselves.
            #expect(clock.frame(atOrAfter: clock.instant(ofFrame: f)) == f)
        }
    }

    @Test(arguments: [0, -1, 1001])
    func unsupportedRatesAreRejected(rate: Int) {
        #expect(throws: CoreError.self) { try FrameClock(rate: rate) }
    }

    @Test(
        arguments: [
            (0.35 * 60, Int64(21)), (7.35, Int64(8)), (0.0, Int64(0)), (1e-12, Int64(0)), (1.0000000001, Int64(1)),
            (2.5, Int64(3)),
        ] as [(Double, Int64)])
    func wholeFramesAbsorbsBinaryNoise(frames: Double, whole: Int64) {
        #expect(FrameClock.wholeFrames(frames) == whole)
    }
}
