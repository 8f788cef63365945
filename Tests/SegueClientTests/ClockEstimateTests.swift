import Testing

@testable import SegueClient

/// Cristian's method, best of N: the offset from the ping with the shortest round trip, taking the
/// daemon to have read its clock halfway through it.
@Suite struct ClockEstimateTests {
    /// `(sent, received)` on the monotonic clock, the wall clock at receipt, the daemon's clock.
    typealias Sample = (sent: Int64, received: Int64, wall: Int64, daemon: Int64)

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var samples: [Sample]
        var offset: Int64?
        var roundTrip: Int64?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "no samples", samples: [], offset: nil, roundTrip: nil),
        // The daemon 5 ms ahead, symmetric 1 ms legs: it read 1 ms after the send, 5 ms ahead.
        Case(
            name: "one sample, daemon ahead", samples: [(0, 2_000_000, 10_002_000_000, 10_006_000_000)],
            offset: 5_000_000, roundTrip: 2_000_000),
        Case(
            name: "one sample, daemon behind", samples: [(0, 1_000_000, 50_001_000_000, 49_997_500_000)],
            offset: -3_000_000, roundTrip: 1_000_000),
        // The same true offset (+2 ms) seen through three round trips; the shortest one wins even
        // when a longer, asymmetric one (a slow return leg) would say otherwise.
        Case(
            name: "the shortest round trip wins",
            samples: [
                (0, 9_000_000, 1_009_000_000, 1_003_000_000),  // 1 ms out, 8 ms back: says -1.5 ms
                (20_000_000, 20_400_000, 1_020_400_000, 1_022_200_000),  // 0.2 ms each way
                (40_000_000, 43_000_000, 1_043_000_000, 1_044_500_000),  // 2.5 ms out, 0.5 back: +3 ms
            ],
            offset: 2_000_000, roundTrip: 400_000),
        Case(
            name: "equal round trips: the first",
            samples: [(0, 1000, 5000, 7000), (2000, 3000, 8000, 9000)], offset: 2500, roundTrip: 1000),
        Case(
            name: "an odd round trip: its half rounds toward zero", samples: [(0, 3, 1000, 1000)], offset: 1,
            roundTrip: 3),
        Case(
            name: "a sample whose clocks ran backwards is left out",
            samples: [(10, 5, 100, 900), (0, 10, 100, 100)], offset: 5, roundTrip: 10),
    ]

    @Test(arguments: cases)
    func theBestSampleGivesTheOffset(_ c: Case) {
        let samples = c.samples.map {
            ClockSample(sent: $0.sent, received: $0.received, receivedWall: $0.wall, daemonClock: $0.daemon)
        }
        let estimate = ClockEstimate(samples: samples)
        #expect(estimate?.offset == c.offset)
        #expect(estimate?.roundTrip == c.roundTrip)
        if let estimate, let roundTrip = c.roundTrip {
            #expect(estimate.uncertainty == roundTrip / 2)
            #expect(estimate.roundTrips.first == roundTrip && estimate.roundTrips == estimate.roundTrips.sorted())
        }
    }

    /// Whatever the legs took, the true offset lies within half the round trip of the estimate.
    @Test(arguments: [(0, 4), (1, 3), (2, 2), (3, 1), (4, 0)] as [(Int64, Int64)])
    func theTrueOffsetIsWithinHalfTheRoundTrip(out: Int64, back: Int64) {
        let trueOffset: Int64 = 7_000
        let sent: Int64 = 1_000
        let daemon = sent + out + trueOffset
        let sample = ClockSample(
            sent: sent, received: sent + out + back, receivedWall: sent + out + back, daemonClock: daemon)
        #expect(abs(sample.offset - trueOffset) <= sample.roundTrip / 2)
    }

    @Test func aDaemonInstantOnTheClientsClock() throws {
        let estimate = try #require(
            ClockEstimate(samples: [ClockSample(sent: 0, received: 0, receivedWall: 100, daemonClock: 130)]))
        #expect(estimate.offset == 30)
        #expect(estimate.localInstant(ofDaemon: 1_000) == 970)
        #expect(estimate.medianRoundTrip == 0)
    }

    @Test(arguments: [([5], 5), ([1, 9, 3], 3), ([4, 2, 8, 6], 4)] as [([Int64], Int64)])
    func medianRoundTripIsTheLowerMiddle(roundTrips: [Int64], median: Int64) throws {
        let samples = roundTrips.map { ClockSample(sent: 0, received: $0, receivedWall: 0, daemonClock: 0) }
        #expect(try #require(ClockEstimate(samples: samples)).medianRoundTrip == median)
    }
}
