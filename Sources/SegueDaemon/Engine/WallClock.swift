import Glibc

/// The real-time clock in Unix nanoseconds, and precise sleeps: the only place the daemon reads time.
///
/// Frames are instants of the Unix epoch (docs/design.md, "The frame clock"), so this is `CLOCK_REALTIME`; a wall-clock
/// step backwards only pauses frames, since the fleet never lets times or frames go backwards.
package enum WallClock {
    package static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// Monotonic nanoseconds, for measuring intervals.
    package static func monotonic() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// The calling thread's CPU time in nanoseconds: with `monotonic`, tells a thread that worked
    /// from one that waited or got no CPU.
    package static func threadCPU() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// Sleeps until the real-time instant `deadline` (absolute, so sleeps do not accumulate drift).
    package static func sleep(until deadline: Int64) {
        var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }
}

extension Duration {
    /// In whole nanoseconds, the unit every instant in the daemon is counted in.
    var inNanoseconds: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }
}

/// The system's clocks, as the engine core measures itself with them.
final class SystemClock: EngineClock {
    func monotonic() -> Int64 { WallClock.monotonic() }
    func threadCPU() -> Int64 { WallClock.threadCPU() }
    func wall() -> Int64 { WallClock.now() }
}
