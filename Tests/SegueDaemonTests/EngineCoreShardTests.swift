import SegueCore
import SegueProtocol
import SegueStore
import Testing

@testable import SegueDaemon

/// Several daemons on one log, as the engine's rules see it: leadership changes in, `moved` for the
/// shards led elsewhere, and a shard taken from the log with its transitions resolved.
@Suite struct EngineCoreShardTests {
    static let shards = ShardMap(count: 2)

    /// A navigator name in `shard`.
    static func name(in shard: Int, _ prefix: String = "n") -> String {
        (0...).lazy.map { "\(prefix)\($0)" }.first { shards.shard(of: $0) == shard }!
    }

    static func sharded(_ log: FakeLog = FakeLog(), leading: [Int]) throws -> EngineHarness {
        let h = try EngineHarness(log: log) { $0.shards = Self.shards }
        h.core.leaderOf = { shard in "tcp://leader-of-\(shard):7400" }
        _ = h.core.step(.leadership(leading.map { .acquired(shard: $0, epoch: 1) }, now: h.now))
        return h
    }

    /// Stepping down for a shard drops the final ticks held for the lease of its navigators: the
    /// leases written from then on cover only the shards still led, and the new leader ticks them.
    @Test func aStepDownDropsTheHeldFinalTicksOfTheShardsLost() throws {
        let h = try EngineHarness(log: FakeLog()) {
            $0.shards = Self.shards
            $0.frameLease = .seconds(1)
        }
        h.core.leaderOf = { shard in "tcp://leader-of-\(shard):7400" }
        _ = h.core.step(.leadership([.acquired(shard: 0, epoch: 1), .acquired(shard: 1, epoch: 1)], now: h.now))
        let lost = Self.name(in: 0)
        let kept = Self.name(in: 1)
        for name in [lost, kept] { _ = h.call(#"{"cmd":"create","navigator":"\#(name)","root":"Home"}"#) }
        for name in [lost, kept] {
            _ = h.call(#"{"cmd":"push","navigator":"\#(name)","screen":"A","animated":false}"#)
        }
        h.move(frames: 2)
        // A command passes over the frames held for the lease, keeping their final ticks.
        _ = h.call(#"{"cmd":"create","navigator":"\#(Self.name(in: 1, "q"))","root":"Home"}"#)
        #expect(Set(h.core.heldFinals.map(\.tick.navigator)) == [lost, kept])
        _ = h.core.step(.leadership([.lost(shards: [0], reason: "test")], now: h.now))
        #expect(h.core.heldFinals.map(\.tick.navigator) == [kept])
    }

    @Test func aCommandForAShardLedElsewhereIsAnsweredMoved() throws {
        let h = try Self.sharded(leading: [0])
        let mine = Self.name(in: 0)
        let theirs = Self.name(in: 1)
        #expect(h.call(#"{"cmd":"create","navigator":"\#(mine)","root":"Home"}"#).reply["ok"] == true)
        let moved = h.call(#"{"cmd":"create","navigator":"\#(theirs)","root":"Home","id":"c1"}"#)
        #expect(moved.appended.isEmpty)
        #expect(
            moved.reply
                == MovedReply(navigator: theirs, shard: 1, leader: "tcp://leader-of-1:7400").json(id: "c1"))
        h.core.leaderOf = { _ in nil }
        let leaderless = h.call(#"{"cmd":"create","navigator":"\#(theirs)","root":"Home"}"#).reply
        #expect(leaderless["error"]?["code"] == "unavailable", "no leader known: retry")
    }

    /// `stats` says how many shards, which this daemon leads, and the log's navigators, beside the
    /// counts of those it leads (a standby's are 0); nothing with one daemon.
    @Test func statsSayWhichShardsThisDaemonLeads() throws {
        let log = FakeLog()
        let leader = try Self.sharded(log, leading: [0, 1])
        let standby = try Self.sharded(log, leading: [])
        for shard in [0, 1] {
            _ = leader.call(#"{"cmd":"create","navigator":"\#(Self.name(in: shard))","root":"Home"}"#)
        }
        let stats = #"{"cmd":"stats"}"#
        let led = leader.call(stats).reply
        #expect(
            led["shards"] == [
                "count": 2, "leads": [0, 1], "navigators": 2, "lostRaces": 0, "reruns": 0, "refusedAfterReruns": 0,
            ],
            "\(led.serialized())")
        #expect(led["navigators"] == 2)
        let idle = standby.call(stats).reply
        #expect(
            idle["shards"] == [
                "count": 2, "leads": [], "navigators": 2, "lostRaces": 0, "reruns": 0, "refusedAfterReruns": 0,
            ],
            "\(idle.serialized())")
        #expect(idle["navigators"] == 0)
        #expect(try EngineHarness().call(stats).reply["shards"] == nil, "one daemon's reply has no shards")
    }

    /// A standby on the same log takes the shard: the navigator joins its fleet as the log left it, the
    /// interactive transition the old leader had in flight is cancelled for recovery, and the
    /// standby answers for it from then on; the old leader, stepped down, answers `moved`.
    @Test func aTakenShardIsFoldedFromTheLogAndItsGestureCancelled() throws {
        let log = FakeLog()
        let old = try Self.sharded(log, leading: [0, 1])
        let standby = try Self.sharded(log, leading: [])
        let name = Self.name(in: 0)
        _ = old.call(#"{"cmd":"create","navigator":"\#(name)","root":"Home"}"#)
        _ = old.call(#"{"cmd":"push","navigator":"\#(name)","screen":"B","animated":false}"#)
        _ = old.call(#"{"cmd":"begin","navigator":"\#(name)","operation":"pop"}"#)
        _ = old.call(#"{"cmd":"update","navigator":"\#(name)","percent":0.4}"#)
        let before = log.events.count

        _ = old.core.step(.leadership([.lost(shards: [0], reason: "test")], now: old.now))
        standby.move(frames: 3)
        _ = standby.core.step(.leadership([.acquired(shard: 0, epoch: 2)], now: standby.now))
        _ = standby.commit()
        let resolved = log.events.dropFirst(before)
        #expect(resolved.map(\.type) == ["transition.cancelled"])
        #expect(resolved.first?.data["reason"] == "recovery")
        #expect(resolved.first?.seq == Int64(before + 1), "numbered after the old leader's events")
        let state = standby.call(#"{"cmd":"state","navigator":"\#(name)"}"#).reply
        #expect(state["transition"] == .null && state["revision"]?.int64Value == resolved.first?.revision)
        #expect(
            old.call(#"{"cmd":"pop","navigator":"\#(name)"}"#).reply["error"]?["code"] == "moved",
            "the old leader forgot the shard")
    }

    /// Another daemon's appends are folded a page a loop turn, the loop woken at once while a page
    /// was full, then once a second again: a daemon back from a stall or a cut folded seconds of
    /// them in one turn, its frames held back meanwhile. The fleet goes to the log's end at once,
    /// skipping them: left on a page's end, the next command or completion would be numbered on
    /// seqs the log holds.
    @Test func anotherDaemonsAppendsAreFollowedAPageATurn() throws {
        let log = FakeLog()
        let follower = try Self.sharded(log, leading: [0])
        let other = try Self.sharded(log, leading: [1])
        let name = Self.name(in: 1)
        _ = other.call(#"{"cmd":"create","navigator":"\#(name)","root":"Home"}"#)
        for index in 0..<300 {
            _ = other.call(#"{"cmd":"push","navigator":"\#(name)","screen":"S\#(index)","animated":false}"#)
        }
        #expect(log.lastSeq == 601)
        follower.move(frames: 61)
        var folded: [Int64?] = []
        var positions: [Int64] = []
        var wakesAtOnce: [Bool] = []
        for _ in 0..<4 {
            _ = follower.core.step(.housekeeping(now: follower.now))
            folded.append(follower.core.logFold?.lastSeq)
            positions.append(follower.core.fleet.lastSeq)
            let wake = follower.core.nextWake(now: follower.now, monotonic: follower.timer.monotonic(), interval: nil)
            wakesAtOnce.append(wake == follower.now)
        }
        let page = Int64(EngineCore.followPage)
        #expect(folded == [page, 2 * page, 601, 601])
        #expect(positions == [601, 601, 601, 601])
        #expect(wakesAtOnce == [true, true, false, false])
        #expect(follower.core.logFold?.state(of: name).revision == other.core.fleet.state(of: name).revision)
        // The next turn after a second reads what came since, and a command is numbered after it.
        _ = other.call(#"{"cmd":"pop","navigator":"\#(name)","animated":false}"#)
        follower.move(frames: 61)
        _ = follower.core.step(.housekeeping(now: follower.now))
        #expect(follower.core.fleet.lastSeq == 603)
        let mine = follower.call(#"{"cmd":"create","navigator":"\#(Self.name(in: 0))","root":"Home"}"#)
        #expect(mine.reply["seq"] == 604, "\(mine)")
    }

    /// Which refusals are a race lost to another daemon (answered and logged so) and which stay
    /// failures: a revision out of step is no race, the fence keeps others off led navigators.
    @Test(arguments: [
        (StoreError(kind: .postgres, sqlState: "SG002", message: "the log no longer ends at seq 4"), true),
        (
            StoreError(
                kind: .postgres, sqlState: "23505",
                message: "duplicate key value violates unique constraint \"events_pkey\""), true
        ),
        (
            StoreError(
                kind: .outOfSequence,
                message: "Event seq 2 does not continue the log, whose next seq is 9. Renumber from the store's "
                    + "lastSeq and resubmit."), true
        ),
        (
            StoreError(
                kind: .outOfSequence,
                message: "Event seq 2 has revision 3 for navigator \"n0\", whose next revision is 2. Renumber and "
                    + "resubmit."), false
        ),
        (StoreError(kind: .io, message: "disk full"), false),
    ])
    func whichRefusalsAreLostRaces(error: StoreError, isRace: Bool) {
        #expect(EngineCore.isLogMoved(error) == isRace)
    }

    /// A leader cut off mid-commit while a standby took its shard: the log holds the standby's events
    /// on the seqs of the lost batch. The old leader folds them in, but does not publish them as its
    /// own late commit: the standby published them, and subscribers would get each twice.
    @Test func anotherDaemonsEventsOnALostBatchsSeqsAreNotPublishedAgain() throws {
        let log = FakeLog()
        let old = try Self.sharded(log, leading: [0])
        let standby = try Self.sharded(log, leading: [])
        let name = Self.name(in: 0)
        _ = old.call(#"{"cmd":"create","navigator":"\#(name)","root":"Home"}"#)
        _ = old.send(#"{"cmd":"push","navigator":"\#(name)","screen":"Mine","animated":false}"#)
        _ = standby.core.step(.leadership([.acquired(shard: 0, epoch: 2)], now: standby.now))
        _ = standby.commit()
        _ = standby.call(#"{"cmd":"push","navigator":"\#(name)","screen":"Theirs","animated":false}"#)
        let theirs = log.events.filter { $0.seq > 1 }
        #expect(theirs.count == 2)
        let (lost, _) = EngineCoreLateCommitTests.commitFailing(old, EngineCoreLateCommitTests.lost)
        #expect(lost.reply["error"]?["code"] == "unavailable")
        #expect(lost.events.isEmpty, "republished: \(lost.events.map { $0.serialized() })")
        #expect(!lost.logLines.contains { $0.contains("found committed after all") }, "\(lost.logLines)")
    }

    /// The same read-back when the lost batch did commit: its events are this daemon's, and go out.
    @Test func aLostBatchFoundCommittedIsPublishedByItsLeader() throws {
        let log = FakeLog()
        let leader = try Self.sharded(log, leading: [0])
        let name = Self.name(in: 0)
        _ = leader.call(#"{"cmd":"create","navigator":"\#(name)","root":"Home"}"#)
        _ = leader.send(#"{"cmd":"push","navigator":"\#(name)","screen":"Mine","animated":false}"#)
        var out = leader.core.step(.commit)
        for case .append(let batch, let epoch) in out {
            for unit in batch { log.store(unit) }
            out += leader.core.step(
                .committed(
                    batch.map {
                        EngineCompletion(epoch: epoch, for: $0, result: .failure(EngineCoreLateCommitTests.lost))
                    }))
        }
        #expect(out.events.map { $0["type"] } == ["transition.started", "transition.completed"])
        #expect(out.logLines.contains { $0.contains("found committed after all: 2 events") }, "\(out.logLines)")
    }

    /// A client's replies keep the order of its requests when its command is decided again: a
    /// request read after the loss waits behind it, and so does the client's other answer the loss
    /// voided (a read queued behind the batch), while another client's goes out at once.
    @Test func repliesAfterALostRaceKeepEachClientsOrder() throws {
        let h = try Self.sharded(leading: [0])
        let name = Self.name(in: 0)
        _ = h.call(#"{"cmd":"create","navigator":"\#(name)","root":"Home"}"#)
        h.commitFailure = StoreError(kind: .postgres, sqlState: "SG002", message: "another daemon appended first")
        _ = h.send(#"{"cmd":"push","navigator":"\#(name)","screen":"A","animated":false,"id":"p"}"#, client: 1)
        _ = h.send(#"{"cmd":"state","navigator":"\#(name)","id":"r1"}"#, client: 1)
        _ = h.send(#"{"cmd":"state","navigator":"\#(name)","id":"r2"}"#, client: 2)
        let lost = h.commit()
        #expect(lost.replies.map { $0["id"] } == ["r2"], "only the other client's answer: \(lost.replies)")
        h.commitFailure = nil
        let later = h.send(#"{"cmd":"state","navigator":"\#(name)","id":"r3"}"#, client: 1)
        #expect(later.replies.isEmpty, "behind the command decided again")
        let replies = h.commit().replies
        #expect(replies.map { $0["id"] } == ["p", "r1", "r3"], "\(replies)")
        #expect(replies.first?["ok"] == true)
        #expect(replies.last?["stack"]?.arrayValue?.count == 2, "the read after it sees the push")
    }

    /// A daemon stopping with commands to decide again answers them `unavailable`: no client waits
    /// for a reply that never comes; and gives the log's turn back before its store drains.
    @Test func commandsLeftToDecideAgainAtShutdownAreAnswered() throws {
        let h = try Self.sharded(leading: [0])
        let name = Self.name(in: 0)
        _ = h.call(#"{"cmd":"create","navigator":"\#(name)","root":"Home"}"#)
        h.commitFailure = StoreError(kind: .postgres, sqlState: "SG002", message: "another daemon appended first")
        #expect(h.call(#"{"cmd":"push","navigator":"\#(name)","screen":"A","animated":false}"#).replies.isEmpty)
        let stopped = h.core.step(.shutdown(now: h.now))
        #expect(stopped.reply["error"]?["code"] == "unavailable", "\(stopped.replies)")
        #expect(stopped.yields == 1, "the turn the store may hold is given back before it closes")
    }

    /// A batch that lost the race for its seqs (or its command id) to another daemon: its commands
    /// are decided again on the log's new end, at once (`EngineCore+Races.swift`), and only a command
    /// that lost three times is answered `unavailable`, saying so, not pointing at storage. The
    /// store is told to give back the log's turn after each batch of commands decided again. The
    /// log line comes once per 10 s, counting the rest, where two leaders under load used to write
    /// dozens a second. The race is lost at the fence (`SG002`), or at the writer's numbering when
    /// its end is past the daemon's (another daemon's events, read when its session was made again).
    @Test(arguments: [
        StoreError(kind: .postgres, sqlState: "SG002", message: "another daemon appended first"),
        StoreError(
            kind: .outOfSequence,
            message: "Event seq 2 does not continue the log, whose next seq is 9. Renumber from the store's lastSeq "
                + "and resubmit."),
    ])
    func aBatchThatLostTheRaceIsDecidedAgainThenAnswered(race: StoreError) throws {
        let h = try Self.sharded(leading: [0])
        let name = Self.name(in: 0)
        _ = h.call(#"{"cmd":"create","navigator":"\#(name)","root":"Home"}"#)
        h.commitFailure = race
        let first = h.call(#"{"cmd":"push","navigator":"\#(name)","screen":"S","animated":false}"#)
        #expect(first.replies.isEmpty, "decided again, not answered: \(first.replies)")
        #expect(first.yields == 0, "the turn is given back only after the commands decided again")
        let second = h.advance(frames: 0)
        #expect(second.replies.isEmpty, "decided a second time: \(second.replies)")
        #expect(second.yields == 1)
        let third = h.advance(frames: 0)
        #expect(
            third.reply["error"]?["message"]?.stringValue
                == "Another daemon on the log appended first, so push on \(name) was not applied; retry it.")
        #expect(third.yields == 1)
        var lines = first.logLines + second.logLines + third.logLines
        h.move(frames: 601)
        let later = h.call(#"{"cmd":"push","navigator":"\#(name)","screen":"T","animated":false}"#)
        lines += later.logLines
        #expect(
            lines.filter { $0.hasPrefix("Another daemon") } == [
                "Another daemon appended first; the commands of the batch after seq 1 are decided again.",
                "Another daemon appended first; the commands of the batch after seq 1 are decided again (2 more such "
                    + "batches since the last line).",
            ], "\(lines)")
        h.commitFailure = nil
        let won = h.advance(frames: 0)
        #expect(won.reply["ok"] == true, "\(won.replies)")
        #expect(won.reply["seq"] == 3, "the push lost three times was not applied: \(won.replies)")
        #expect(h.call(#"{"cmd":"state","navigator":"\#(name)"}"#).reply["stack"]?.arrayValue?.count == 2)
        let stats = h.call(#"{"cmd":"stats"}"#).reply["shards"]
        #expect(
            stats?["lostRaces"] == 4 && stats?["reruns"] == 3 && stats?["refusedAfterReruns"] == 1,
            "\(stats?.serialized() ?? "")")
        h.commitFailure = StoreError(kind: .duplicateCommand, message: "stored by another writer")
        var duplicate = h.call(#"{"cmd":"push","navigator":"\#(name)","screen":"U","animated":false,"id":"x"}"#)
        duplicate += h.advance(frames: 0) + h.advance(frames: 0)
        // Any failure: the store may have taken the turn for a race behind the duplicate.
        #expect(duplicate.yields == 2, "after each batch decided again")
        #expect(
            duplicate.reply["error"]?["message"]?.stringValue?.hasPrefix("Another daemon on the log appended first")
                == true)
    }
}
