import SegueCore
import SegueWire

extension Engine {
    /// Closes every frame whose instant has passed: the clock's events (completions, timeouts, queued
    /// starts) are appended, and each frame's ticks queued behind them.
    func closeFrames(now: Int64) {
        let target = clock.frame(atOrBefore: now)
        guard target > fleet.closedFrame else { return }
        if fleet.active.isEmpty {
            fleet.skipFrames(through: target)
            return
        }
        var first = fleet.closedFrame + 1
        if target - first >= Int64(options.maxCatchUpFrames) {
            // Far behind (a stall, a suspended process): resolve the clock's events for the skipped
            // frames, but publish ticks only for the most recent ones.
            let skipTo = target - Int64(options.maxCatchUpFrames)
            submitClockEvents(fleet.advance(toFrame: skipTo))
            stats.missedFrames += skipTo - first + 1
            fleet.skipFrames(through: skipTo)
            first = skipTo + 1
        }
        for frame in first...target {
            let (events, ticks) = fleet.closeFrame(frame)
            submitClockEvents(events)
            for tick in ticks {
                publish("tick/\(tick.navigator)/", tick.encoded(), after: fleet.lastSeq)
            }
            stats.ticks += Int64(ticks.count)
            stats.framesClosed += 1
            if now - clock.instant(ofFrame: frame) > 2_000_000 { stats.lateFrames += 1 }
        }
    }

    /// `hb/` once per interval, from the durable position, never gated (it shows nothing undurable).
    func heartbeat(now: Int64) {
        let body: JSON = [
            "frame": .int(clock.frame(atOrBefore: now)), "time": .int(now), "seq": .int(durableSeq),
            "navigators": .int(fleet.navigators.count), "version": .string(Self.version),
        ]
        _ = try? publisher?.sendMultipart([Array("hb/".utf8), body.serializedBytes()], dontWait: true)
        let interval = options.heartbeatInterval.components
        let step = interval.seconds * 1_000_000_000 + interval.attoseconds / 1_000_000_000
        nextHeartbeat = now + max(step, 1_000_000)
    }
}
