/// One ping's timing (Cristian's method): the client's monotonic clock when it sent the ping and when
/// the reply came, its wall clock at the reply, and the daemon's wall clock in the reply (`clock`).
///
/// All in nanoseconds; wall clocks are Unix time, as frames and `presentAt` are.
public struct ClockSample: Equatable, Sendable {
    public var sent: Int64
    public var received: Int64
    public var receivedWall: Int64
    public var daemonClock: Int64

    public init(sent: Int64, received: Int64, receivedWall: Int64, daemonClock: Int64) {
        self.sent = sent
        self.received = received
        self.receivedWall = receivedWall
        self.daemonClock = daemonClock
    }

    /// The round trip, by the monotonic clock (a wall-clock step during the ping does not count).
    public var roundTrip: Int64 { received - sent }

    /// The daemon's clock minus the client's, taking the daemon to have read its clock halfway
    /// through the round trip: right within ±`roundTrip / 2`, whatever the two legs took.
    public var offset: Int64 { daemonClock + roundTrip / 2 - receivedWall }
}

/// The client's clock offset from the daemon's, from the ping with the shortest round trip (Cristian's
/// method, best of N: the shortest round trip bounds the error the tightest).
public struct ClockEstimate: Equatable, Sendable {
    /// The daemon's clock minus the client's, ns: a daemon instant (a tick's `presentAt`) is
    /// `instant - offset` on the client's wall clock.
    public var offset: Int64
    /// The round trip of the sample `offset` comes from; the offset is right within half of it.
    public var roundTrip: Int64
    /// Every sample's round trip, shortest first.
    public var roundTrips: [Int64]

    /// The best of `samples`: nil when there are none (or none with a round trip of 0 or more).
    public init?(samples: [ClockSample]) {
        let usable = samples.filter { $0.roundTrip >= 0 }
        // `min(by:)` keeps the first of equal round trips: the estimate does not depend on ties' order.
        guard let best = usable.min(by: { $0.roundTrip < $1.roundTrip }) else { return nil }
        offset = best.offset
        roundTrip = best.roundTrip
        roundTrips = usable.map(\.roundTrip).sorted()
    }

    /// How far off `offset` can be: half the best round trip.
    public var uncertainty: Int64 { roundTrip / 2 }

    /// The median round trip (the lower middle of an even count).
    public var medianRoundTrip: Int64 { roundTrips[(roundTrips.count - 1) / 2] }

    /// The client's wall-clock instant (Unix ns) at which the daemon's clock reads `daemonInstant`.
    public func localInstant(ofDaemon daemonInstant: Int64) -> Int64 { daemonInstant - offset }
}
