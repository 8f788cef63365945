import SegueCore
import Testing

/// `ReplayPacing`: when `replay --publish` sends each frame.
@Suite struct ReplayPacingTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var rate: Int
        var speed: Double
        var maxGap: Double?
        var frames: [Int64]
        /// Expected offsets from the first frame, in milliseconds.
        var offsets: [Double]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "consecutive frames at 60 Hz", rate: 60, speed: 1, maxGap: 2, frames: [600, 601, 602, 660],
            offsets: [0, 1000 / 60.0, 2000 / 60.0, 1000]),
        Case(
            name: "speed 4 divides every wait", rate: 60, speed: 4, maxGap: nil, frames: [0, 60, 120],
            offsets: [0, 250, 500]),
        Case(
            name: "an idle hour shortened to 2 s", rate: 60, speed: 1, maxGap: 2,
            frames: [0, 1, 216_001, 216_002], offsets: [0, 1000 / 60.0, 1000 / 60.0 + 2000, 2000 / 60.0 + 2000]),
        Case(
            name: "off keeps the hour", rate: 60, speed: 1, maxGap: nil, frames: [0, 216_000],
            offsets: [0, 3_600_000]),
        Case(
            name: "the limit is in wall time, after speed", rate: 120, speed: 10, maxGap: 1,
            frames: [0, 120 * 5, 120 * 30], offsets: [0, 500, 1500]),
        Case(
            name: "a gap just under the limit is kept", rate: 60, speed: 1, maxGap: 2, frames: [0, 119, 120 + 119],
            offsets: [0, 1000 * 119 / 60.0, 1000 * 239 / 60.0]),
    ]

    @Test(arguments: cases)
    func framesAreSentAtTheirInstantsWithLongGapsShortened(_ c: Case) throws {
        var pacing = ReplayPacing(clock: try FrameClock(rate: c.rate), speed: c.speed, maxGap: c.maxGap)
        let offsets = c.frames.map { Double(pacing.offset(of: $0)) / 1e6 }
        #expect(offsets.count == c.offsets.count)
        for (got, expected) in zip(offsets, c.offsets) {
            #expect(abs(got - expected) < 0.001, "\(offsets) vs \(c.offsets)")
        }
    }
}
