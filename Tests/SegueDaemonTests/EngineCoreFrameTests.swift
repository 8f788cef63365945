import SegueCore
import SegueProtocol
import SegueStore
import SegueWire
import Testing

@testable import SegueDaemon

/// The frame clock's rules in the engine core, with time moved by hand: ticks, their wait behind
/// undurable events, catch-up and overload, interaction timeouts, heartbeats.
@Suite struct EngineCoreFrameTests {
    static let create = EngineCoreRequestTests.create
    static func push(_ screen: String) -> String { EngineCoreRequestTests.push(screen, animated: true) }

    @Test func anAnimatedPushTicksEveryFrameUntilItCompletes() throws {
        let h = try EngineHarness()
        _ = h.call(Self.create)
        #expect(h.call(Self.push("A")).reply["ok"] == true)
        var ticks: [JSON] = []
        var types: [String] = []
        for _ in 0..<40 {
            let out = h.advance(frames: 1)
            ticks += out.tickBodies
            types += out.events.compactMap { $0["type"]?.stringValue }
        }
        #expect(types == ["transition.completed"])
        let frames = ticks.compactMap { $0["frame"]?.int64Value }
        #expect(frames == Array(frames[0]...frames[frames.count - 1]), "one per frame")
        #expect(ticks.count == 22, "0.35 s at 60 Hz: 21 frames after the first")
        #expect(ticks.last?["final"] == true && ticks.last?["fraction"] == 1)
        #expect(h.core.stats.ticks == Int64(ticks.count) && h.core.fleet.active.isEmpty)
    }

    /// Every tick's `presentAt` is its frame's instant plus the configured presentation delay.
    @Test(arguments: [Duration.zero, .milliseconds(40), .milliseconds(1500)])
    func ticksArePresentedAfterTheDelay(delay: Duration) throws {
        let h = try EngineHarness { $0.presentationDelay = delay }
        _ = h.call(Self.create)
        _ = h.call(Self.push("A"))
        let ticks = (0..<30).flatMap { _ in h.advance(frames: 1).tickBodies }
        #expect(ticks.count == 22)
        for tick in ticks {
            let time = try #require(tick["time"]?.int64Value)
            #expect(tick["presentAt"] == .int(time + delay.inNanoseconds))
        }
    }

    /// A tick that shows an event not yet durable waits behind it, and goes out with it.
    @Test func ticksWaitBehindUndurableEvents() throws {
        let h = try EngineHarness()
        _ = h.call(Self.create)
        _ = h.send(Self.push("A"))
        h.move(frames: 1)
        let closed = h.core.step(.frameDeadline(now: h.now))
        #expect(closed.topics.isEmpty, "\(closed)")
        let committed = h.commit()
        #expect(committed.topics == ["event/r/", "tick/r/"], "\(committed.topics)")
        let next = h.advance(frames: 1)
        #expect(next.topics == ["tick/r/"], "nothing waits: published at once")
    }

    /// Behind by more than `maxCatchUpFrames`, the loop resolves the skipped frames without ticks.
    @Test func aStallSkipsAllButTheLastFrames() throws {
        let h = try EngineHarness()
        _ = h.call(Self.create)
        _ = h.call(Self.push("A"))
        _ = h.advance(frames: 1)
        let out = h.advance(frames: 10)
        #expect(out.ticks.count == 6)
        #expect(h.core.stats.missedFrames == 4 && h.core.stats.stalls == 1)
        #expect(out.logLines.count == 1 && out.logLines[0].hasPrefix("The frame loop fell behind and skipped 4 frames"))
        #expect(h.advance(frames: 10).logLines.isEmpty, "the next stall within the interval is only counted")
    }

    /// A transition that ends in skipped frames still has its final tick, at its end frame and the
    /// same as without the stall; several navigators' in frame order, each behind its completion.
    @Test(arguments: [30, 60] as [Int64])
    func aStallKeepsTheFinalTicksOfTransitionsEndingInIt(stall: Int64) throws {
        func started() throws -> EngineHarness {
            let h = try EngineHarness()
            _ = h.call(Self.create)
            _ = h.call(#"{"cmd":"create","navigator":"q","root":"Home"}"#)
            _ = h.call(Self.push("A"))
            _ = h.advance(frames: 3)
            _ = h.call(#"{"cmd":"present","navigator":"q","screen":"B","animator":{"duration":0.1}}"#)
            // Placed in the first frame not closed yet: it ends there, before the stall's clock events.
            _ = h.call(#"{"cmd":"create","navigator":"n","root":"Home"}"#)
            _ = h.call(#"{"cmd":"push","navigator":"n","screen":"C","animated":false}"#)
            return h
        }
        let live = try started()
        var expected: [JSON] = []
        for _ in 0..<stall { expected += live.advance(frames: 1).tickBodies.filter { $0["final"] == true } }
        #expect(expected.map { $0["navigator"] } == ["n", "q", "r"], "the later present ends first")

        let stalled = try started()
        let out = stalled.advance(frames: stall)
        #expect(stalled.core.stats.missedFrames == stall - 6)
        #expect(out.tickBodies.filter { $0["final"] == true } == expected)
        let frames = out.tickBodies.compactMap { $0["frame"]?.int64Value }
        #expect(frames == frames.sorted())
        // Each final tick goes out after the event it shows.
        let topics = out.topics
        #expect(topics.firstIndex(of: "event/q/")! < topics.firstIndex(of: "tick/q/")!, "\(topics)")
        #expect(topics.firstIndex(of: "event/r/")! < topics.firstIndex(of: "tick/r/")!, "\(topics)")
    }

    /// When closing a frame costs more than half a frame period, a command resolves the frames before
    /// it without ticks rather than wait behind them, and a read closes none.
    @Test func overloadShedsTicksForCommands() throws {
        let h = try EngineHarness()
        _ = h.call(Self.create)
        _ = h.call(Self.push("A"))
        h.timer.costPerRead = 10_000_000
        _ = h.advance(frames: 1)
        #expect(h.core.isOverloaded)
        h.move(frames: 3)
        let closedBefore = h.core.fleet.closedFrame
        _ = h.call(#"{"cmd":"list"}"#)
        #expect(h.core.fleet.closedFrame == closedBefore, "a read places nothing")
        let out = h.send(#"{"cmd":"push","navigator":"r","screen":"B","animated":false}"#)
        #expect(out.ticks.isEmpty && h.core.fleet.closedFrame == closedBefore + 3)
        #expect(h.core.stats.overloadStalls == 1 && h.core.stats.missedFrames == 3)
        #expect(out.logLines.first?.hasPrefix("The frame loop is overloaded") == true, "\(out.logLines)")
    }

    /// A gesture without `update` for `interactionTimeout` is cancelled by the clock, reason `timeout`.
    @Test(arguments: [(20, false), (40, true)] as [(Int64, Bool)])
    func silentGesturesTimeOut(frames: Int64, cancelled: Bool) throws {
        let h = try EngineHarness()
        _ = h.call(#"{"cmd":"create","navigator":"r","root":"Home","interactionTimeout":0.5}"#)
        _ = h.call(EngineCoreRequestTests.push("A"))
        #expect(h.call(#"{"cmd":"begin","navigator":"r","operation":"pop"}"#).reply["ok"] == true)
        var events: [JSON] = []
        for _ in 0..<frames { events += h.advance(frames: 1).events }
        let cancelling = events.first { $0["type"] == "transition.cancelling" }
        #expect((cancelling?["data"]?["reason"] == "timeout") == cancelled, "\(events)")
    }

    // MARK: Heartbeats

    /// `hb/` once per interval, from the durable seq: an event not yet committed is not counted.
    @Test func heartbeatsCarryTheDurableSeq() throws {
        let h = try EngineHarness { $0.heartbeatInterval = .seconds(2) }
        _ = h.call(Self.create)
        _ = h.send(Self.push("A"))
        let first = h.core.step(.housekeeping(now: h.now))
        guard let hb = first.published("hb/").first else {
            Issue.record("no heartbeat: \(first)")
            return
        }
        #expect(hb["seq"] == 1 && hb["instance"] == "test" && hb["heartbeatSeconds"] == 2 && hb["navigators"] == 1)
        #expect(hb["frame"] == .int(h.clock.frame(atOrBefore: h.now)) && hb["time"] == .int(h.now))
        // The fleet digest as of the durable seq: `r` created (`["r",1,[["s1","Home"]],[]]`), not the
        // push still being committed.
        #expect(hb["digest"] == "3cd180529b013572", "\(hb)")
        h.now += 1_999_000_000
        h.timer.advance(by: 1_999_000_000)
        #expect(h.core.step(.housekeeping(now: h.now)).published("hb/").isEmpty)
        h.now += 1_000_000
        h.timer.advance(by: 1_000_000)
        #expect(h.core.step(.housekeeping(now: h.now)).published("hb/").count == 1)
        #expect(h.core.nextWake(now: h.now, monotonic: h.timer.monotonic(), interval: nil) <= h.now + 1_000_000_000)
    }

    /// A wall clock set back 20 s while serving: heartbeats keep their interval (they are due on the
    /// monotonic clock), and the log says how long ticks wait for the clock to pass the last closed
    /// frame again.
    @Test func aWallClockSetBackKeepsTheHeartbeatsAndIsSaid() throws {
        let h = try EngineHarness()
        _ = h.call(Self.create)
        _ = h.call(#"{"cmd":"push","navigator":"r","screen":"A","animator":{"duration":60}}"#)
        _ = h.advance(frames: 3)
        _ = h.core.step(.housekeeping(now: h.now))
        h.timer.advance(by: 1_100_000_000)
        h.now -= 20_000_000_000
        let after = h.core.step(.housekeeping(now: h.now))
        #expect(after.published("hb/").count == 1, "\(after)")
        // Its frame never goes back either: the last closed one until the clock passes it, as ping says.
        let closed = h.core.fleet.closedFrame
        #expect(after.published("hb/").first?["frame"] == .int(closed), "\(after.published("hb/"))")
        #expect(h.call(#"{"cmd":"ping"}"#).reply["frame"] == .int(closed))
        let line = after.logLines.first { $0.contains("The wall clock went back") }
        #expect(
            line?.hasPrefix("The wall clock went back 21.1 s: ticks wait until it passes frame ") == true,
            "\(after.logLines)")
        #expect(
            line?.hasSuffix(" again, in 20 s (frames never go back); heartbeats and commands go on meanwhile.") == true,
            "\(after.logLines)")
    }

    /// A process stopped (SIGSTOP, a pause under load) between its loop turn's wall clock reading and
    /// the housekeeping later in the turn saw the monotonic clock move and the wall clock not: that
    /// used to be said as the wall clock going back. Both are read together now.
    @Test func aStopWithinALoopTurnIsNoClockStep() throws {
        let h = try EngineHarness()
        _ = h.call(Self.create)
        _ = h.core.step(.housekeeping(now: h.now))
        h.timer.advance(by: 1_500_000_000)
        let lines = h.core.step(.housekeeping(now: h.now)).logLines
        #expect(!lines.contains { $0.contains("The wall clock went back") }, "\(lines)")
    }

    /// A failed commit voids what waited for it; but a tick of another navigator, whose transition is
    /// durable, that waited behind it still goes out, as it would have after a commit that succeeded:
    /// its frame is not closed again, so dropped it was lost (with several leaders on one log, at every
    /// race lost, up to most ticks and final ticks).
    @Test(arguments: [false, true])
    func aFailedCommitKeepsTheTicksOfDurableTransitions(fails: Bool) throws {
        let h = try EngineHarness()
        for name in ["a", "b"] { _ = h.call(#"{"cmd":"create","navigator":"\#(name)","root":"Home"}"#) }
        _ = h.call(#"{"cmd":"push","navigator":"a","screen":"A","animated":true}"#)
        _ = h.send(#"{"cmd":"push","navigator":"b","screen":"B","animated":true}"#)
        h.move(frames: 3)
        let closed = h.core.step(.frameDeadline(now: h.now))
        #expect(closed.tickBodies.isEmpty, "they wait for b's push: \(closed.tickBodies)")
        if fails { h.commitFailure = StoreError(kind: .io, message: "full") }
        let ticks = h.commit().tickBodies
        let frames = { (name: String) in ticks.filter { $0["navigator"] == .string(name) }.map { $0["frame"] } }
        #expect(frames("a").count == 3, "\(ticks)")
        #expect(frames("b").count == (fails ? 0 : 3), "\(ticks)")
    }

    /// Failed commits are logged at once, later ones once a second as a count.
    @Test func commitFailuresAreRateLimited() throws {
        let h = try EngineHarness()
        _ = h.call(Self.create)
        h.commitFailure = StoreError(kind: .io, message: "full")
        #expect(h.call(EngineCoreRequestTests.push("A")).logLines.count == 1)
        #expect(h.call(EngineCoreRequestTests.push("A")).logLines.isEmpty)
        h.timer.advance(by: 1_000_000_000)
        let lines = h.core.step(.housekeeping(now: h.now)).logLines
        #expect(lines.count == 1 && lines[0].hasPrefix("1 more commit(s) failed"), "\(lines)")
    }
}
