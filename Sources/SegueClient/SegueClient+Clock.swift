import Glibc
import SegueProtocol

extension SegueClient {
    /// One ping, timed: the sample for `ClockEstimate`. `malformed` when the reply has no `clock`
    /// (a daemon older than clock estimates).
    public func clockSample() throws(SegueClientError) -> ClockSample {
        let sent = ClockSample.readClocks().monotonic
        let pong = try ping()
        let (received, wall) = ClockSample.readClocks()
        guard let clock = pong.clock else {
            throw .malformed("The ping reply has no clock: the daemon is older than clock estimates; upgrade it.")
        }
        return ClockSample(sent: sent, received: received, receivedWall: wall, daemonClock: clock)
    }

    /// The client's clock offset from the daemon's by Cristian's method, best of `pings` pings
    /// `spacing` apart (spaced, so that one burst of delay on the link does not spoil them all).
    public func estimateClock(pings: Int = 8, spacing: Duration = .milliseconds(10)) throws(SegueClientError)
        -> ClockEstimate
    {
        var samples: [ClockSample] = []
        for index in 0..<max(pings, 1) {
            if index > 0 { ClockSample.sleep(spacing) }
            samples.append(try clockSample())
        }
        // Monotonic round trips are never negative, so there is always a best sample.
        guard let estimate = ClockEstimate(samples: samples) else { throw .malformed("no usable clock sample") }
        return estimate
    }
}

extension ClockSample {
    /// The client's monotonic clock and wall clock (Unix) now, in nanoseconds, as a sample reads them.
    public static func readClocks() -> (monotonic: Int64, wall: Int64) {
        var mono = timespec()
        var wall = timespec()
        clock_gettime(CLOCK_MONOTONIC, &mono)
        clock_gettime(CLOCK_REALTIME, &wall)
        return (
            Int64(mono.tv_sec) * 1_000_000_000 + Int64(mono.tv_nsec),
            Int64(wall.tv_sec) * 1_000_000_000 + Int64(wall.tv_nsec)
        )
    }

    static func sleep(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var ts = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&ts, &remaining) == -1, errno == EINTR { ts = remaining }
    }
}
