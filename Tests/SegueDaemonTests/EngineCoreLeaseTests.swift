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
    static let longPush = #"{"cmd":"push","navigator":"r","screen":"A","animator":{"duration":3}}"#

    /// A harness whose core leases a second (60 frames) at a time, as segued does.
    static func leasing(log: FakeLog = FakeLog(), now: Int64 = EngineHarness.start) throws -> EngineHarness {
        try EngineHarness(log: log, now: now) { $0.frameLease = .seconds(1) }
    }

    /// What the store does with a lease write: each row raised, never lowered.
    static func raise(_ rows: [String], to frame: Int64, in log: FakeLog) {
        for row in rows {
            let old = log.snapshots.first { $0.navigator == row }?.state["frame"]?.int64Value ?? .min
            guard frame > old else { continue }
            log.snapshots.removeAll { $0.navigator == row }
            log.snapshots.append(FrameLease.snapshot(frame, shard: nil).renamed(row))
        }
    }

    /// What the loop does with the lease writes among `actions`: the rows, then `.leased`.
    static func grant(
        _ actions: [EngineAction], in h: EngineHarness, failure: StoreError? = nil, shards expected: [Int: Int64]? = nil
    ) -> [EngineAction] {
        var out: [EngineAction] = []
        for case .saveLease(let frame, let shards, let generation) in actions {
            #expect(shards == expected)
            if failure == nil { raise(FrameLeaseRows.names(shards: shards?.keys.sorted()), to: frame, in: h.log) }
            out += h.core.step(.leased(frame: frame, generation: generation, failure: failure, now: h.now))
        }
        return out
    }

    static func leases(_ actions: [EngineAction]) -> [Int64] {
        actions.compactMap { action in
            guard case .saveLease(let frame, _, _) = action else { return nil }
            return frame
        }
    }

    static func frames(_ actions: [EngineAction]) -> [Int64] {
        actions.tickBodies.compactMap { $0["frame"]?.int64Value }
    }

    /// A daemon leading `shard` under a 1 s lease, with a navigator of its own animating for
    /// `duration` seconds and its first lease written; and the navigator's name.
    static func busyLeader(
        of shard: Int, log: FakeLog = FakeLog(), now: Int64 = EngineHarness.start, duration: Int
    ) throws -> (EngineHarness, String) {
        let h = try EngineHarness(log: log, now: now) {
            $0.shards = EngineCoreShardTests.shards
            $0.frameLease = .seconds(1)
        }
        _ = h.core.step(.leadership([.acquired(shard: shard, epoch: 1)], now: h.now))
        let name = EngineCoreShardTests.name(in: shard)
        _ = h.call(#"{"cmd":"create","navigator":"\#(name)","root":"Home"}"#)
        let pushed = h.call(
            #"{"cmd":"push","navigator":"\#(name)","screen":"A","animator":{"duration":\#(duration)}}"#)
        _ = grant(pushed, in: h, shards: [shard: 1])
        return (h, name)
    }

    /// Moves `count` frames, one at a time, with every lease asked for written: the frames ticked,
    /// and the leases asked for.
    static func run(_ h: EngineHarness, frames count: Int) -> (ticked: [Int64], leases: [Int64]) {
        var ticked: [Int64] = []
        var asked: [Int64] = []
        for _ in 0..<count {
            let out = h.advance(frames: 1)
            ticked += frames(out)
            asked += leases(out)
            _ = grant(out, in: h)
        }
        return (ticked, asked)
    }

    /// Moves a frame at a time until a renewal is asked for: the frames ticked, and that frame's actions.
    static func untilRenewal(_ h: EngineHarness) -> (ticked: [Int64], renewal: [EngineAction]) {
        var ticked: [Int64] = []
        while true {
            let out = h.advance(frames: 1)
            ticked += frames(out)
            if !leases(out).isEmpty { return (ticked, out) }
        }
    }

    /// A navigator and a 3 s push on it, its first lease written: the transition's first frame.
    static func animating(_ h: EngineHarness) -> Int64 {
        _ = h.call(create)
        let pushed = h.call(longPush)
        _ = grant(pushed, in: h)
        return h.core.fleet.closedFrame + 1
    }

    /// Nothing asks for a lease while nothing ticks. The first transition asks for one behind its
    /// events; its ticks wait for it, then go out; a 0.35 s transition lives within that lease.
    @Test func ticksWaitForTheLeaseAndGoOutUnderIt() throws {
        let h = try Self.leasing()
        _ = h.call(Self.create)
        var idle: [Int64] = []
        for _ in 0..<90 { idle += Self.leases(h.advance(frames: 1)) }
        #expect(idle.isEmpty, "no transition, no tick, no lease")
        let pushed = h.call(Self.push("A"))
        let first = h.core.fleet.closedFrame + 1
        #expect(Self.leases(pushed) == [first + 60], "\(pushed)")
        let append = try #require(pushed.firstIndex { if case .append = $0 { true } else { false } })
        let lease = try #require(pushed.firstIndex { !Self.leases([$0]).isEmpty })
        #expect(append < lease, "the lease is written behind the events")
        let waiting = h.advance(frames: 1)
        #expect(waiting.tickBodies.isEmpty && Self.leases(waiting).isEmpty, "\(waiting)")
        #expect(h.core.fleet.closedFrame == first - 1)
        _ = h.core.step(.housekeeping(now: h.now))
        let wake = h.core.nextWake(now: h.now, monotonic: h.timer.monotonic(), interval: nil)
        #expect(wake > h.now, "the overdue frame waits for the lease's write, which wakes the loop")
        #expect(h.core.nextFrameDue == nil, "no frame falls due to end a turn of requests before the write")
        _ = Self.grant(pushed, in: h)
        #expect(h.core.nextFrameDue == h.core.clock.instant(ofFrame: first), "granted, the overdue frame is due")
        var frames = Self.frames(h.advance(frames: 0))
        #expect(frames == [first])
        for _ in 0..<60 { frames += Self.frames(h.advance(frames: 1)) }
        #expect(frames == Array(first...first + 21), "the whole transition, no frame missed")
        #expect(h.core.stats.missedFrames == 0)
    }

    /// A long transition renews the lease a span at a time, half a span before it runs out: a write
    /// a second, and the lease 0.5 to 1.5 s ahead of the ticks.
    @Test func aLongTransitionRenewsASpanAtATime() throws {
        let h = try Self.leasing()
        let first = Self.animating(h)
        let (frames, renewals) = Self.run(h, frames: 170)
        #expect(frames == Array(first...first + 169))
        #expect(renewals == [first + 120, first + 180, first + 240])
    }

    /// A failed renewal is said once; ticks go out up to the lease the log holds and not one frame
    /// past it; the write is asked again half a span after the failure, and its success is said.
    @Test func aFailedRenewalHoldsTicksAtTheLeaseAndIsRetried() throws {
        let h = try Self.leasing()
        let first = Self.animating(h)
        let (ticked, renewal) = Self.untilRenewal(h)
        var frames = ticked
        let failedAt = h.core.fleet.closedFrame
        let ioError = StoreError(kind: .sqlite, extendedCode: 10, message: "disk I/O error")
        let failed = Self.grant(renewal, in: h, failure: ioError)
        #expect(
            failed.logLines == [
                "Could not save the frame lease through frame \(first + 120) (\(ioError)): ticks wait until a "
                    + "write succeeds."
            ])
        var asked: [Int64] = []
        while h.core.fleet.closedFrame < failedAt + 29 || asked.isEmpty {
            let out = h.advance(frames: 1)
            frames += Self.frames(out)
            if !Self.leases(out).isEmpty { asked += Self.leases(out) } else { #expect(out.logLines.isEmpty) }
            if !asked.isEmpty {
                #expect(h.core.clock.frame(atOrBefore: h.now) >= failedAt + 30, "not before half a span")
                let recovered = Self.grant(out, in: h)
                #expect(recovered.logLines.first?.hasPrefix("Saved the frame lease again") == true)
            }
        }
        #expect(frames.max() == first + 60, "up to the lease the log holds, and no further")
        #expect(Set(frames).count == frames.count)
        #expect(!Self.frames(h.advance(frames: 1)).isEmpty, "ticks again once a write succeeded")
    }

    /// A process stopped past the end of its lease falls behind on its own: the frames it skips,
    /// those the lease covered and those after, which wait a moment for the write, are the loop's
    /// stall, not the lease's, and one stall: the frames the write let go are not a second one
    /// (which `stats` counted, "115 frames in 1.3 ms").
    @Test func aStoppedProcessPastItsLeaseIsTheLoopsStallNotTheLeases() throws {
        let h = try Self.leasing()
        _ = Self.animating(h)
        _ = Self.run(h, frames: 3)
        h.move(frames: 120)
        var out = h.core.step(.frameDeadline(now: h.now)) + h.commit()
        var lines = out.logLines
        #expect(h.core.lastStall?.longest != .lease)
        for _ in 0..<3 {
            lines += Self.grant(out, in: h).logLines
            out = h.advance(frames: 1)
            lines += out.logLines
        }
        let stalls = lines.filter { $0.hasPrefix("The frame loop") }
        #expect(!stalls.isEmpty && stalls.allSatisfy { $0.contains("fell behind") }, "\(lines)")
        #expect(h.core.lastStall?.longest != .lease)
        #expect(h.core.stats.stalls == 1, "\(lines)")
        #expect(h.core.lastStall.map(\.frames) == Int64(120 - 6), "the frames it fell behind by, but the last 6")
    }

    /// Frames held past the lease while its writes fail are skipped, but for the last 6, once a
    /// write succeeds, and the stall is put down to the lease rather than to the loop's own steps:
    /// an operator reads "the frame lease", not "waiting for work" and an overloaded machine.
    @Test func aStallOfFramesHeldForTheLeaseIsPutDownToIt() throws {
        let h = try Self.leasing()
        _ = Self.animating(h)
        let ioError = StoreError(kind: .io, message: "disk full")
        var out = Self.untilRenewal(h).renewal
        var held = 0
        while held < 20 {
            _ = Self.grant(out, in: h, failure: ioError)
            let closed = h.core.fleet.closedFrame
            out = h.advance(frames: 1)
            if h.core.fleet.closedFrame == closed { held += 1 }
        }
        #expect(h.core.lastStall == nil)
        var lines = Self.grant(out, in: h).logLines
        while Self.leases(out).isEmpty {
            out = h.advance(frames: 1)
            lines += out.logLines + Self.grant(out, in: h).logLines
        }
        lines += h.advance(frames: 1).logLines
        let stall = try #require(h.core.lastStall)
        #expect(stall.longest == .lease && stall.frames >= 14, "\(stall)")
        let line = try #require(lines.first { $0.hasPrefix("The frame loop skipped") }, "\(lines)")
        #expect(line.contains("ms for the frame lease: ticks go out only for frames the log's lease covers"))
        #expect(!lines.contains { $0.contains("fell behind") || $0.contains("off the CPU") }, "\(lines)")
    }

    /// A renewal that takes 3 s to write (a disk or a server stalled) holds frames past the lease it
    /// grants when it lands: the stall is the lease's, and one stall.
    @Test func aSlowLeaseWriteIsTheLeasesStall() throws {
        let h = try Self.leasing()
        _ = Self.animating(h)
        let renewal = Self.untilRenewal(h).renewal
        for _ in 0..<180 { _ = h.advance(frames: 1) }
        #expect(h.core.lastStall == nil, "frames wait for the write")
        var out = Self.grant(renewal, in: h)
        var lines = out.logLines
        for _ in 0..<3 {
            out = h.advance(frames: 1)
            lines += out.logLines + Self.grant(out, in: h).logLines
        }
        let stall = try #require(h.core.lastStall, "\(lines)")
        #expect(stall.longest == .lease, "\(stall)")
        #expect(h.core.stats.stalls == 1, "\(lines)")
    }

    /// The wall clock steps back while the lease holds frames of a stall, and later jumps over those
    /// frame numbers at once: that jump is a stall of its own, not frames the first one counted.
    @Test func aStallAfterTheWallClockWentBackIsAStall() throws {
        let h = try Self.leasing()
        _ = Self.animating(h)
        _ = Self.run(h, frames: 3)
        let before = h.core.fleet.closedFrame
        h.move(frames: 120)
        let out = h.core.step(.frameDeadline(now: h.now)) + h.commit()
        #expect(h.core.stats.stalls == 1)
        let held = h.core.fleet.closedFrame
        #expect(held < before + 100, "the lease holds frames of the stall: closed through \(held)")
        _ = h.core.step(.housekeeping(now: h.now))
        h.timer.advance(by: 1_100_000_000)
        h.now -= 10_000_000_000
        _ = h.core.step(.housekeeping(now: h.now))
        _ = Self.grant(out, in: h)
        // In one jump to frames the first stall was found past: the loop was away again.
        let target = h.clock.instant(ofFrame: before + 115)
        h.timer.advance(by: target - h.now)
        h.now = target
        var lines = (h.core.step(.frameDeadline(now: h.now)) + h.commit()).logLines
        for _ in 0..<2 {
            let next = h.advance(frames: 1)
            lines += next.logLines + Self.grant(next, in: h).logLines
        }
        #expect(h.core.stats.stalls == 2, "\(lines)")
    }

    /// A command that arrives while frames wait for the lease's write passes them over without
    /// ticks: their ticks would have been taken from a fleet that already holds the command. So
    /// no tick goes out for a frame before an event the log holds, and frames never go back in the log.
    @Test func aCommandWhileFramesWaitForTheLeasePassesThemOver() throws {
        let h = try Self.leasing()
        _ = h.call(Self.create)
        let pushed = h.call(Self.longPush)
        for _ in 0..<3 { #expect(h.advance(frames: 1).tickBodies.isEmpty) }
        let created = h.call(#"{"cmd":"create","navigator":"q","root":"Home"}"#)
        #expect(created.reply["ok"] == true)
        let placed = try #require(h.log.events.last?.frame)
        #expect(h.core.stats.missedFrames == 3)
        _ = Self.grant(pushed, in: h)
        let frames = Self.run(h, frames: 10).ticked
        #expect(!frames.isEmpty && frames.allSatisfy { $0 >= placed }, "\(frames) against \(placed)")
        let logged = h.log.events.map(\.frame)
        #expect(logged == logged.sorted(), "frames never go back in the log")
    }

    /// A command that passes over frames waiting for the lease keeps the final ticks of transitions
    /// ending there (a non-animated push's only tick) and publishes them once the lease is written,
    /// as closing their frame would have made them: a subscriber sees every transition end, and the
    /// ticks are those a replay of the log makes. Nothing else of those frames goes out.
    @Test func aCommandWhileFramesWaitForTheLeaseKeepsTheirFinalTicks() throws {
        let h = try Self.leasing()
        _ = h.call(Self.create)
        let pushed = h.call(Self.push("A", animated: false))
        let ended = try #require(h.log.events.last?.frame)
        for _ in 0..<2 { #expect(h.advance(frames: 1).tickBodies.isEmpty) }
        let created = h.call(#"{"cmd":"create","navigator":"q","root":"Home"}"#)
        #expect(created.tickBodies.isEmpty, "not before the lease covers the frame")
        let granted = Self.grant(pushed, in: h)
        let ticks = granted.tickBodies
        #expect(ticks.count == 1, "\(ticks)")
        #expect(ticks.first?["navigator"] == "r" && ticks.first?["final"] == true)
        #expect(ticks.first?["frame"]?.int64Value == ended && ticks.first?["phase"] == "completed")
        #expect(ticks.first?["revision"] == 3, "the state as of its frame, before q was created")
        #expect(Self.run(h, frames: 10).ticked.isEmpty, "published once")
    }

    /// A failed commit voids the final ticks held for the lease that show what it voided: they are
    /// never published (a subscriber would see a push that never happened), and they do not hold up
    /// the replies after them, which they did: each waited in the outbox behind a seq the log no
    /// longer reached, and no reply went out again.
    @Test func aFailedCommitDropsTheHeldFinalTicksItVoided() throws {
        let h = try Self.leasing()
        _ = h.call(Self.create)
        let pushed = h.call(Self.push("A", animated: false))
        for _ in 0..<2 { _ = h.advance(frames: 1) }
        _ = h.send(Self.push("B", animated: false))
        h.move(frames: 2)
        // Passes over the held frames: B's final tick is kept for the lease, behind B's events.
        _ = h.send(#"{"cmd":"create","navigator":"q","root":"Home"}"#)
        h.commitFailure = StoreError(kind: .io, message: "disk full")
        let failed = h.commit()
        #expect(failed.replies.count == 2 && failed.replies.allSatisfy { $0["error"]?["code"] == "unavailable" })
        h.commitFailure = nil
        let granted = Self.grant(pushed, in: h)
        #expect(granted.tickBodies.map { $0["navigator"] } == ["r"], "A's final tick: \(granted.tickBodies)")
        #expect(h.call(#"{"cmd":"state","navigator":"r"}"#).reply["ok"] == true, "replies flow again")
        // The log grows past B's seqs again: still no tick of r, whose push B never happened.
        var after: [EngineAction] = []
        for name in ["q1", "q2", "q3"] { after += h.call(#"{"cmd":"create","navigator":"\#(name)","root":"Home"}"#) }
        for _ in 0..<5 { after += h.advance(frames: 1) }
        #expect(h.log.lastSeq >= 5)
        #expect(after.tickBodies.isEmpty, "\(after.tickBodies)")
        #expect(h.core.outbox.isEmpty)
    }

    /// A held final tick waits behind the fleet's last seq when it was held, which may be another
    /// navigator's event: when that one is voided, the tick of a push that is stored still goes out
    /// (a subscriber sees every transition end), now behind the durable seq.
    @Test func aFailedCommitKeepsTheHeldFinalTicksOfWhatIsStored() throws {
        let h = try Self.leasing()
        _ = h.call(Self.create)
        _ = h.call(#"{"cmd":"create","navigator":"m","root":"Home"}"#)
        let pushed = h.call(Self.push("A", animated: false))
        let stored = h.log.lastSeq
        h.move(frames: 2)
        _ = h.send(#"{"cmd":"push","navigator":"m","screen":"B","animated":false}"#)
        // r's final is held; tagged as if it had been held behind m's events, as a completion of m
        // decided in the same pass would have it.
        #expect(h.core.heldFinals.map(\.tick.navigator) == ["r"])
        h.core.heldFinals = h.core.heldFinals.map { ($0.tick, h.core.fleet.lastSeq) }
        h.commitFailure = StoreError(kind: .io, message: "disk full")
        _ = h.commit()
        h.commitFailure = nil
        #expect(h.core.heldFinals.map(\.seq) == [stored], "kept, behind what is stored")
        let granted = Self.grant(pushed, in: h)
        #expect(granted.tickBodies.map { $0["navigator"] } == ["r"], "\(granted.tickBodies)")
        #expect(h.call(#"{"cmd":"state","navigator":"m"}"#).reply["ok"] == true)
    }

    /// After a crash on a wall clock set back, the restarted core starts its frames after the lease
    /// the log holds: a command is placed after every frame that may have been ticked, and frames
    /// tick again from the one after the lease once the clock passes it.
    @Test func aRestartOnAClockSetBackStartsAfterTheLease() throws {
        let before = try Self.leasing()
        _ = Self.animating(before)
        let published = try #require(Self.run(before, frames: 40).ticked.max())
        let leased = try #require(try FrameLease.read(from: before.log, shard: nil))
        #expect(leased > published)
        // The clock five seconds behind the frames already published.
        let after = try Self.leasing(log: before.log, now: before.now - 5_000_000_000)
        after.core.recovered(after.core.recover(now: after.now), waited: 0)
        let lines = after.core.takeActions().logLines
        let behind = Double(leased - after.clock.frame(atOrBefore: after.now)) / 60
        #expect(
            lines.contains {
                $0.hasPrefix("The wall clock is \((behind * 10).rounded() / 10) s behind")
                    && $0.contains("lease runs through \(leased)")
            }, "\(lines)")
        #expect(after.core.fleet.closedFrame == leased)
        let created = after.call(#"{"cmd":"create","navigator":"q","root":"Home"}"#)
        #expect(created.reply["ok"] == true, "\(created.reply)")
        _ = Self.grant(created, in: after)
        #expect(after.log.events.last!.frame > leased, "placed after every frame that may have been ticked")
        let frames = Self.run(after, frames: 400).ticked
        #expect(frames.first == leased + 1, "the first frame after the lease, once the clock passes it")
        #expect(frames == Array((leased + 1..<leased + 1 + Int64(frames.count))))
    }

    /// A restart soon after a crash, on a clock that did not step, waits out what is left of the
    /// lease and says so as a notice; a graceful stop gives the lease back down to the last frame
    /// closed.
    @Test func aQuickRestartWaitsOutTheLeaseAndAStopCutsItBack() throws {
        let before = try Self.leasing()
        _ = Self.animating(before)
        _ = Self.run(before, frames: 10)
        let leased = try #require(try FrameLease.read(from: before.log, shard: nil))
        let stop = try #require(before.core.leaseAtStop)
        #expect(stop.frame == before.core.fleet.closedFrame && stop.shards == nil && stop.frame < leased)

        let after = try Self.leasing(log: before.log, now: before.now + 200_000_000)
        after.core.recovered(after.core.recover(now: after.now), waited: 0)
        let lines = after.core.takeActions().logLines
        #expect(lines.contains { $0.hasPrefix("Frames resume after frame \(leased) (in 0.") }, "\(lines)")
        #expect(!lines.contains { $0.hasPrefix("The wall clock") })
    }

    /// A renewal refused by a shard's fence (another daemon took the shard): the leader ticks up to
    /// the lease the log holds and not one frame past it, says why, and has its leadership checked,
    /// as a fenced append does; it does not report a storage failure.
    @Test func aFencedRenewalStopsTicksAtTheLeaseAndChecksLeadership() throws {
        let (h, _) = try Self.busyLeader(of: 0, duration: 3)
        let held = try #require(h.core.lease?.durable)
        let (ticked, renewal) = Self.untilRenewal(h)
        var frames = ticked
        let fenced = StoreError(
            kind: .postgres, sqlState: "SG001", message: "another daemon took shard(s) 0 (a newer epoch)")
        let refused = Self.grant(renewal, in: h, failure: fenced, shards: [0: 1])
        #expect(refused.logLines.count == 1)
        #expect(refused.logLines.first?.hasPrefix("A frame lease write was refused by a shard's fence") == true)
        #expect(refused.logLines.first?.hasSuffix("ticks stop at frame \(held).") == true, "\(refused.logLines)")
        #expect(refused.contains { if case .checkLeadership = $0 { true } else { false } })
        // The retry, half a span after the refusal, is refused too.
        for _ in 0..<45 {
            let out = h.advance(frames: 1)
            frames += Self.frames(out)
            _ = Self.grant(out, in: h, failure: fenced, shards: [0: 1])
        }
        #expect(frames.max() == held, "ticked through the lease the log holds, not past it")
        // The shard taken afresh (nobody else held its lock): a lease is asked for at the next frame,
        // not half a span after the last refusal, and the transition is ticked again under it.
        _ = h.core.step(.leadership([.lost(shards: [0], reason: "the epoch moved")], now: h.now))
        _ = h.core.step(.leadership([.acquired(shard: 0, epoch: 3)], now: h.now))
        let asked = h.advance(frames: 1)
        #expect(Self.leases(asked).count == 1, "\(asked)")
        _ = Self.grant(asked, in: h, shards: [0: 3])
        let resumed = Self.frames(h.advance(frames: 1))
        #expect(!resumed.isEmpty && resumed.allSatisfy { $0 > held }, "\(resumed)")
    }

    /// A checkpoint's fold passes over the lease rows, which no navigator name can collide with, and
    /// takes the furthest of them, shards' included (a log several daemons led before).
    @Test func theFoldPassesOverLeaseRowsAndTakesTheFurthest() throws {
        let h = try EngineHarness { $0.checkpointEvery = 2 }
        _ = h.call(Self.create)
        _ = h.call(Self.push("A", animated: false))
        for case .saveSnapshots(_, let snapshots) in h.core.step(.turnEnded) { h.log.snapshots += snapshots }
        h.log.snapshots += [FrameLease.snapshot(5, shard: nil), FrameLease.snapshot(7, shard: 3)]
        let after = try Self.leasing(log: h.log, now: h.now)
        #expect(after.core.fold.checkpoint > 0)
        #expect(after.core.fleet.navigators.keys.sorted() == ["r"])
        #expect(after.core.lease?.durable == 7)
    }

    /// A standby whose clock is behind the old leader's takes a shard: its frames start after the
    /// shard's lease (the frames passed over count as missed), and the shard's navigators are ticked
    /// only under a lease asked for after the takeover, which names the shard: a write asked for
    /// before it counts for nothing, even one that ends further.
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
        let stale = standby.call(#"{"cmd":"push","navigator":"\#(mine)","screen":"A","animator":\#(animated)}"#)
        let staleEnd = try #require(Self.leases(stale).first)
        // The old leader of shard 0, on a clock ahead, ticked up to a lease 20 frames past this one.
        let ahead = standby.core.fleet.closedFrame + 20
        #expect(staleEnd > ahead)
        log.snapshots.append(FrameLease.snapshot(ahead, shard: 0))
        let took = standby.core.step(.leadership([.acquired(shard: 0, epoch: 2)], now: standby.now))
        #expect(took.logLines.contains { $0.contains("frames passed over to start after the previous leader's") })
        #expect(standby.core.fleet.closedFrame == ahead)
        #expect(standby.core.stats.missedFrames > 0)
        // The write asked for before the takeover (shard 1 alone) lands now: it covers nothing.
        _ = Self.grant(stale, in: standby, shards: [1: 1])
        #expect(standby.core.lease?.durable ?? 0 <= ahead, "a lease asked for before the takeover")
        let pushed = standby.call(#"{"cmd":"push","navigator":"\#(taken)","screen":"B","animator":\#(animated)}"#)
        let asked = pushed.compactMap { action -> [Int]? in
            guard case .saveLease(_, let shards, _) = action else { return nil }
            return shards?.keys.sorted()
        }
        #expect(asked == [[0, 1]], "\(pushed)")
        standby.move(frames: 25)
        #expect(standby.core.step(.frameDeadline(now: standby.now)).tickBodies.isEmpty)
        _ = Self.grant(pushed, in: standby, shards: [0: 2, 1: 1])
        let ticked = standby.advance(frames: 0)
        #expect(Self.frames(ticked).allSatisfy { $0 > ahead } && !ticked.tickBodies.isEmpty)
    }

    /// A graceful handover: the old leader stopped at frame C, its lease cut back there, with a
    /// transition of the shard ending at E after C; the standby's loop went on past E before it took
    /// the shard. Nobody ticked E: the standby decides the end at its own frame and sends its final
    /// tick once its lease covers it, and ticks nothing at or before C again.
    @Test func aTransitionThatEndedBeforeTheTakeoverStillGetsItsFinalTick() throws {
        let log = FakeLog()
        let taken = EngineCoreShardTests.name(in: 0)
        let old = try EngineCoreShardTests.sharded(log, leading: [0])
        _ = old.call(#"{"cmd":"create","navigator":"\#(taken)","root":"Home"}"#)
        _ = old.call(#"{"cmd":"push","navigator":"\#(taken)","screen":"A","animator":{"duration":0.2}}"#)
        let started = try #require(log.events.last { $0.type == "transition.started" })
        let end = started.frame + 12
        _ = old.advance(frames: 3)
        let cut = old.core.fleet.closedFrame
        #expect(cut < end)
        log.snapshots.append(FrameLease.snapshot(cut, shard: 0))
        // Busy with a navigator of its own: its lease runs past the end before it takes the shard.
        let (standby, _) = try Self.busyLeader(of: 1, log: log, now: old.now, duration: 20)
        standby.move(frames: 30)
        var out = standby.core.step(.frameDeadline(now: standby.now))
        out += Self.grant(out, in: standby, shards: [1: 1])
        #expect(standby.core.fleet.closedFrame > end && (standby.core.lease?.durable ?? 0) > end)
        out = standby.core.step(.leadership([.acquired(shard: 0, epoch: 2)], now: standby.now)) + standby.commit()
        out += standby.advance(frames: 1)
        #expect(!out.tickBodies.contains { $0["navigator"]?.stringValue == taken }, "before a lease names the shard")
        out += Self.grant(out, in: standby, shards: [0: 2, 1: 1])
        out += standby.advance(frames: 1)
        let finals = out.tickBodies.filter { $0["navigator"]?.stringValue == taken && $0["final"] == true }
        #expect(finals.map { $0["frame"]?.int64Value } == [end] && finals.first?["final"] == true, "\(out)")
        #expect(log.events.last?.type == "transition.completed" && log.events.last?.frame == end)
    }
}

extension Snapshot {
    func renamed(_ navigator: String) -> Snapshot {
        Snapshot(navigator: navigator, seq: seq, revision: revision, state: state)
    }
}

extension FrameLease {
    /// A lease row as the stores write it.
    static func snapshot(_ end: Int64, shard: Int?) -> Snapshot {
        Snapshot(navigator: FrameLeaseRows.name(shard: shard), seq: .max, revision: 0, state: ["frame": .int(end)])
    }
}
