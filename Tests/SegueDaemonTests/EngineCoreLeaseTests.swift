import SegueCore
import SegueProtocol
import SegueStore
import SegueWire
import Testing

@testable import SegueDaemon

/// The frame lease: ticks go out only for frames the log holds a lease for, and a restart starts its
/// frames after it, whatever the wall clock says.
@Suite struct EngineCoreLeaseTests {
    static let create = EngineCoreRequestTests.create
    static func push(_ screen: String, animated: Bool = true) -> String {
        EngineCoreRequestTests.push(screen, animated: animated)
    }

    /// A harness whose core leases a second (60 frames) at a time, as segued does.
    static func leasing(log: FakeLog = FakeLog(), now: Int64 = EngineHarness.start) throws -> EngineHarness {
        try EngineHarness(log: log, now: now) { $0.frameLease = .seconds(1) }
    }

    /// What the loop does with a lease write: the rows in the log, then `.leased`.
    static func grant(
        _ actions: [EngineAction], in h: EngineHarness, failure: String? = nil, shards expected: [Int]? = nil
    ) -> [EngineAction] {
        var out: [EngineAction] = []
        for case .saveLease(let frame, let shards) in actions {
            #expect(shards == expected)
            if failure == nil {
                for shard in shards ?? [] { h.log.snapshots.append(FrameLease.snapshot(frame, shard: shard)) }
                if shards == nil { h.log.snapshots.append(FrameLease.snapshot(frame, shard: nil)) }
            }
            out += h.core.step(.leased(frame: frame, shards: shards, failure: failure, now: h.now))
        }
        return out
    }

    static func leases(_ actions: [EngineAction]) -> [Int64] {
        actions.compactMap { action in
            guard case .saveLease(let frame, _) = action else { return nil }
            return frame
        }
    }

    /// The first transition asks for a lease behind its events; its ticks wait for the lease, then
    /// go out; the lease is renewed half a span before it runs out, so later frames never wait.
    @Test func ticksWaitForTheLeaseAndItIsRenewedAhead() throws {
        let h = try Self.leasing()
        _ = h.call(Self.create)
        #expect(Self.leases(h.call(Self.create)).isEmpty, "nothing ticks: no lease")
        let pushed = h.call(Self.push("A"))
        let asked = Self.leases(pushed)
        let first = h.core.fleet.closedFrame + 1
        #expect(asked == [first + 60], "\(pushed)")
        #expect(pushed.appended.count == 1 && pushed.firstIndex { Self.leases([$0]) != [] }! > 0)
        let waiting = h.advance(frames: 1)
        #expect(waiting.tickBodies.isEmpty && Self.leases(waiting).isEmpty, "\(waiting)")
        #expect(h.core.fleet.closedFrame == first - 1)
        _ = h.core.step(.housekeeping(now: h.now))
        let wake = h.core.nextWake(now: h.now, monotonic: h.timer.monotonic(), interval: nil)
        #expect(wake > h.now, "the overdue frame waits for the lease's write, which wakes the loop")
        _ = Self.grant(pushed, in: h)
        let ticked = h.advance(frames: 0)
        #expect(ticked.tickBodies.map { $0["frame"] } == [.int(first)])
        var renewals: [Int64] = []
        var ticks = 1
        for _ in 0..<200 {
            let out = h.advance(frames: 1)
            ticks += out.tickBodies.count
            renewals += Self.leases(out)
            _ = Self.grant(out, in: h)
        }
        #expect(ticks == 22, "the whole transition, no frame missed")
        #expect(renewals.isEmpty, "a 0.35 s transition lives within its first lease")
        #expect(h.core.stats.missedFrames == 0)
    }

    /// A long transition renews the lease a span at a time, half a span before it runs out: a write
    /// a second, and the lease 0.5 to 1.5 s ahead of the ticks.
    @Test func aLongTransitionRenewsASpanAtATime() throws {
        let h = try Self.leasing()
        _ = h.call(Self.create)
        let pushed = h.call(#"{"cmd":"push","navigator":"r","screen":"A","animator":{"duration":3}}"#)
        let first = h.core.fleet.closedFrame + 1
        _ = Self.grant(pushed, in: h)
        var renewals: [Int64] = []
        var frames: [Int64] = []
        for _ in 0..<170 {
            let out = h.advance(frames: 1)
            frames += out.tickBodies.compactMap { $0["frame"]?.int64Value }
            renewals += Self.leases(out)
            _ = Self.grant(out, in: h)
        }
        #expect(frames == Array(first...first + 169))
        #expect(renewals == [first + 120, first + 180, first + 240])
    }

    /// A failed write is said once, asked again half a span later, and its recovery is said too;
    /// meanwhile no tick goes past the lease.
    @Test func aFailedWriteHoldsTicksAndIsRetried() throws {
        let h = try Self.leasing()
        _ = h.call(Self.create)
        let pushed = h.call(Self.push("A"))
        let failed = Self.grant(pushed, in: h, failure: "disk I/O error")
        #expect(
            failed.logLines == [
                "Could not save the frame lease through frame \(Self.leases(pushed)[0]) (disk I/O error): ticks wait until a write succeeds."
            ])
        var asked: [Int64] = []
        for _ in 0..<29 {
            let out = h.advance(frames: 1)
            #expect(out.tickBodies.isEmpty)
            asked += Self.leases(out)
        }
        #expect(asked.isEmpty, "not before half a span")
        let retry = h.advance(frames: 1)
        #expect(Self.leases(retry).count == 1)
        let recovered = Self.grant(retry, in: h)
        #expect(recovered.logLines.first?.hasPrefix("Saved the frame lease again") == true)
        #expect(!h.advance(frames: 0).tickBodies.isEmpty, "the frames since go out (the newest, as any catch-up)")
    }

    /// After a crash on a wall clock set back, the restarted core starts its frames after the lease
    /// the log holds: a command is placed after every frame that may have been ticked, and frames
    /// close again only once the clock passes it.
    @Test func aRestartOnAClockSetBackStartsAfterTheLease() throws {
        let before = try Self.leasing()
        _ = before.call(Self.create)
        let pushed = before.call(#"{"cmd":"push","navigator":"r","screen":"A","animator":{"duration":3}}"#)
        _ = Self.grant(pushed, in: before)
        var published: Int64 = 0
        for _ in 0..<40 {
            let out = before.advance(frames: 1)
            published = out.tickBodies.compactMap { $0["frame"]?.int64Value }.max() ?? published
            _ = Self.grant(out, in: before)
        }
        let leased = try #require(try FrameLease.read(from: before.log, shard: nil))
        #expect(leased > published)
        // The clock five seconds behind the frames already published.
        let after = try Self.leasing(log: before.log, now: before.now - 5_000_000_000)
        let recovered = after.core.recover(now: after.now)
        after.core.recovered(recovered, waited: 0)
        let lines = after.core.takeActions().logLines
        #expect(lines.contains { $0.hasPrefix("The wall clock is 5.") && $0.contains("lease runs through \(leased)") })
        #expect(after.core.fleet.closedFrame == leased)
        let reply = after.call(#"{"cmd":"create","navigator":"q","root":"Home"}"#).reply
        #expect(reply["ok"] == true, "\(reply)")
        #expect(after.log.events.last!.frame > leased, "placed after every frame that may have been ticked")
        #expect(after.advance(frames: 60).tickBodies.isEmpty, "the clock is still behind the lease")
        #expect(after.core.fleet.closedFrame == leased)
    }

    /// A restart soon after a crash, on a clock that did not step, waits out what is left of the
    /// lease and says so as a notice; a graceful stop cuts the lease back to the last frame closed.
    @Test func aQuickRestartWaitsOutTheLeaseAndAStopCutsItBack() throws {
        let before = try Self.leasing()
        _ = before.call(Self.create)
        let pushed = before.call(#"{"cmd":"push","navigator":"r","screen":"A","animator":{"duration":3}}"#)
        _ = Self.grant(pushed, in: before)
        for _ in 0..<10 { _ = Self.grant(before.advance(frames: 1), in: before) }
        let leased = try #require(try FrameLease.read(from: before.log, shard: nil))
        let stop = try #require(before.core.leaseAtStop)
        #expect(stop.frame == before.core.fleet.closedFrame && stop.shards == nil && stop.frame < leased)

        let after = try Self.leasing(log: before.log, now: before.now + 200_000_000)
        after.core.recovered(after.core.recover(now: after.now), waited: 0)
        let lines = after.core.takeActions().logLines
        #expect(lines.contains { $0.hasPrefix("Frames resume after frame \(leased) (in 0.") }, "\(lines)")
        #expect(!lines.contains { $0.hasPrefix("The wall clock") })
    }

    /// A checkpoint's fold passes over the lease rows, which no navigator name can collide with.
    @Test func theFoldPassesOverLeaseRows() throws {
        let h = try EngineHarness { $0.checkpointEvery = 2 }
        _ = h.call(Self.create)
        _ = h.call(Self.push("A", animated: false))
        for case .saveSnapshots(_, let snapshots) in h.core.step(.turnEnded) { h.log.snapshots += snapshots }
        h.log.snapshots += [FrameLease.snapshot(5, shard: nil), FrameLease.snapshot(7, shard: 3)]
        let after = try Self.leasing(log: h.log, now: h.now)
        #expect(after.core.fold.checkpoint > 0)
        #expect(after.core.fleet.navigators.keys.sorted() == ["r"])
        #expect(after.core.lease?.durable == 5)
    }

    /// A standby whose clock is behind the old leader's takes a shard: its frames start after the
    /// shard's lease (the frames passed over count as missed), and the shard's navigators are ticked
    /// only once a lease that names the shard is durable; a write for fewer shards does not count.
    @Test func aTakenShardStartsAfterItsLeaseAndIsTickedUnderOne() throws {
        let log = FakeLog()
        let taken = EngineCoreShardTests.name(in: 0)
        let old = try EngineCoreShardTests.sharded(log, leading: [0])
        _ = old.call(#"{"cmd":"create","navigator":"\#(taken)","root":"Home"}"#)
        let standby = try EngineHarness(log: log, now: old.now) {
            $0.shards = EngineCoreShardTests.shards
            $0.frameLease = .seconds(1)
        }
        _ = standby.core.step(.leadership([.acquired(shard: 1, epoch: 1)], now: standby.now))
        let mine = EngineCoreShardTests.name(in: 1)
        _ = standby.call(#"{"cmd":"create","navigator":"\#(mine)","root":"Home"}"#)
        let animated = #"{"duration":20}"#
        let started = standby.call(#"{"cmd":"push","navigator":"\#(mine)","screen":"A","animator":\#(animated)}"#)
        #expect(Self.leases(started).count == 1)
        // The old leader of shard 0, on a clock ahead, ticked up to a lease 90 frames past this one.
        let ahead = standby.core.fleet.closedFrame + 90
        log.snapshots.append(FrameLease.snapshot(ahead, shard: 0))
        let stale = started  // a write for shard 1 alone, still in flight at the takeover
        let took = standby.core.step(.leadership([.acquired(shard: 0, epoch: 2)], now: standby.now))
        #expect(took.logLines.contains { $0.contains("frames passed over to start after the previous leader's") })
        #expect(standby.core.fleet.closedFrame == ahead)
        #expect(standby.core.stats.missedFrames > 0)
        _ = Self.grant(stale, in: standby, shards: [1])
        #expect(standby.core.lease?.durable ?? 0 <= ahead, "a lease without shard 0 covers nothing past it")
        let pushed = standby.call(#"{"cmd":"push","navigator":"\#(taken)","screen":"B","animator":\#(animated)}"#)
        let asked = pushed.compactMap { action -> [Int]? in
            guard case .saveLease(_, let shards) = action else { return nil }
            return shards
        }
        #expect(asked == [[0, 1]], "\(pushed)")
        standby.move(frames: 95)
        #expect(standby.core.step(.frameDeadline(now: standby.now)).tickBodies.isEmpty)
        _ = Self.grant(pushed, in: standby, shards: [0, 1])
        #expect(!standby.advance(frames: 0).tickBodies.isEmpty)
    }
}
