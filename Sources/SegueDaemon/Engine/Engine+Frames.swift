import SegueCore
import SegueWire

extension Engine {
    /// Closes every frame whose instant has passed: the clock's events (completions, timeouts, queued
    /// starts) are appended, and each frame's ticks queued behind them.
    ///
    /// `publishTicks: false` resolves the frames without ticks (they count as missed): requests use
    /// it when closing a frame costs more than half a frame period, so that under overload commands
    /// keep being served instead of waiting behind one frame close each.
    func closeFrames(now: Int64, publishTicks: Bool = true) {
        let target = clock.frame(atOrBefore: now)
        guard target > fleet.closedFrame else { return }
        if fleet.active.isEmpty {
            fleet.skipFrames(through: target)
            return
        }
        let started = WallClock.monotonic()
        var first = fleet.closedFrame + 1
        let keep = publishTicks ? Int64(options.maxCatchUpFrames) : 0
        if target - first >= keep {
            // Behind (a stall, a suspended process, overload): resolve the clock's events for the
            // skipped frames, but publish ticks only for the most recent ones.
            let skipTo = target - keep
            submitClockEvents(fleet.advance(toFrame: skipTo))
            fleet.prune(after: skipTo)
            stats.missedFrames += skipTo - first + 1
            fleet.skipFrames(through: skipTo)
            first = skipTo + 1
        }
        if first <= target {
            for frame in first...target {
                let (events, ticks) = fleet.closeFrame(frame)
                submitClockEvents(events)
                let seq = fleet.lastSeq
                for tick in ticks {
                    outbox.enqueue(.publish(topic: tickTopic(tick.navigator), body: tick.encoded()), after: seq)
                }
                stats.ticks += Int64(ticks.count)
                stats.framesClosed += 1
                if now - clock.instant(ofFrame: frame) > 2_000_000 { stats.lateFrames += 1 }
            }
        }
        lastCloseNanoseconds = WallClock.monotonic() - started
    }

    /// `tick/<navigator>/` as bytes, built once per navigator rather than once per tick.
    func tickTopic(_ navigator: String) -> [UInt8] {
        if let topic = tickTopics[navigator] { return topic }
        let topic = Array("tick/\(navigator)/".utf8)
        tickTopics[navigator] = topic
        return topic
    }

    /// Whether closing frames currently costs more than half a frame period.
    var isOverloaded: Bool { lastCloseNanoseconds * 2 * Int64(clock.rate) > 1_000_000_000 }

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
