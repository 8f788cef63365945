import Foundation
import PostgresTestSupport
import SegueCore
import Synchronization
import Testing

@testable import SeguePostgres
@testable import SegueStore

/// Several daemons on one log: every append of a daemon that leads shards is fenced in its
/// transaction (`segue_fence`) by the shards' epochs and by the log's end.
@Suite struct PostgresFenceTests {
    /// A store that leads shards as a daemon does (`ShardLeases`), without a leadership thread: the
    /// test sets the epochs it holds and those in `shards`.
    static func store(_ place: LogPlace, holding epochs: [Int: Int64]) throws -> PostgresEventStore {
        let leases = ShardLeases(map: ShardMap(count: 2))
        for (shard, epoch) in epochs { leases.set(shard, epoch: epoch) }
        return try PostgresEventStore(
            settings: ConnectionSettings(conninfo: place.conninfo!), leases: leases)
    }

    static func setShards(_ place: LogPlace, _ epochs: [Int: Int64]) throws {
        let admin = try PostgresSchemaTests.admin(place)
        for (shard, epoch) in epochs {
            try admin.execute(
                "INSERT INTO shards (shard, epoch, leader) VALUES (\(shard), \(epoch), 'tcp://test:1') "
                    + "ON CONFLICT (shard) DO UPDATE SET epoch = \(epoch)")
        }
    }

    /// Two daemons' stores on one log, leading shard 0 and shard 1, and the log holding two events
    /// of the first's.
    static func twoLeadersAfterTwoEventsOfTheFirst() throws -> (PostgresEventStore, PostgresEventStore) {
        let place = try LogPlace(.postgres)
        let first = try store(place, holding: [0: 1])
        let second = try store(place, holding: [1: 1])
        try setShards(place, [0: 1, 1: 1])
        var numbering = Numberer()
        try first.append(numbering.unit(navigator(in: 0), count: 2))
        return (first, second)
    }

    /// A navigator name in `shard` of two.
    static func navigator(in shard: Int) -> String { navigators(in: shard)[0] }

    /// The first three navigator names in `shard` of two.
    static func navigators(in shard: Int) -> [String] {
        Array((0...).lazy.map { "n\($0)" }.filter { ShardMap(count: 2).shard(of: $0) == shard }.prefix(3))
    }

    /// A leader cut off while it committed: by the time it reads the batch back, the daemon that
    /// took over has stored other events on its seqs, and its command, which the client retried
    /// there. The batch did not commit (its seqs hold another's events), and the writer goes on; it
    /// used to take the retried id for another writer's meddling and fail every batch after.
    @Test func aLostBatchWhoseCommandWasRetriedAtTheNewLeaderDidNotCommit() throws {
        let place = try LogPlace(.postgres)
        let store = try Self.store(place, holding: [0: 1])
        try Self.setShards(place, [0: 1])
        var numberer = Numberer()
        let name = Self.navigator(in: 0)
        try store.append(numberer.unit(name))
        // The new leader's events on seqs 2 and 3, for the retried command.
        let admin = try PostgresSchemaTests.admin(place)
        try admin.execute(
            "INSERT INTO events (seq, navigator, revision, type, version, frame, time, command, data) VALUES "
                + "(2, '\(name)', 2, 'transition.started', 1, 1002, 2, 'retried'::bytea, '{}'), "
                + "(3, '\(name)', 3, 'transition.completed', 1, 1002, 2, 'retried'::bytea, '{}'); "
                + "INSERT INTO commands (id, navigator, seq, reply) VALUES ('retried'::bytea, '\(name)', 3, '{}')")
        try PostgresFaultTests.loseTheAnswerToTheNextBatch(store)
        let lost = numberer.unit(name, count: 2, commandID: "retried", reply: ["ok": true])
        let results = try store.withWriter { writer in writer.commit([lost][...]) }
        #expect(results.count == 1 && results[0].failure?.code == .unavailable, "\(results)")
        #expect(store.lastSeq == 3)
        var next = Numberer(seq: 3, revisions: [name: 3])
        try store.append(next.unit(name))
        #expect(store.lastSeq == 4)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var held: Int64?
        var stored: Int64
        var appends: Bool
        var testDescription: String { "held \(held.map(String.init) ?? "none"), stored \(stored)" }
    }

    /// Only the epoch in `shards` lets an append through: a leader whose shard was taken (a newer
    /// epoch) or that never took it appends nothing, and the batch fails `unavailable` as fenced.
    @Test(arguments: [
        Case(held: 1, stored: 1, appends: true),
        Case(held: 1, stored: 2, appends: false),
        Case(held: nil, stored: 1, appends: false),
    ])
    func anAppendNeedsTheShardsCurrentEpoch(_ c: Case) throws {
        let place = try LogPlace(.postgres)
        let store = try Self.store(place, holding: c.held.map { [0: $0] } ?? [:])
        try Self.setShards(place, [0: c.stored])
        var numberer = Numberer()
        do {
            try store.append(numberer.unit(Self.navigator(in: 0), count: 2))
            #expect(c.appends, "appended with epoch \(c.held ?? 0) while shards says \(c.stored)")
        } catch {
            #expect(!c.appends, "\(error)")
            #expect(error.sqlState == SQLState.fenced)
            #expect(error.code == .unavailable)
        }
        #expect(try store.allEvents().count == (c.appends ? 2 : 0))
    }

    /// Two leaders of different shards: an append numbered on an end another daemon has moved is
    /// refused whole (`SG002` by the fence, or the seq's primary key when both commit at once), and
    /// numbered again after the other's events it goes through.
    @Test func anAppendNumberedBehindAnotherDaemonsIsRefusedWhole() throws {
        let (first, second) = try Self.twoLeadersAfterTwoEventsOfTheFirst()
        var stale = Numberer()
        do {
            try second.append(stale.unit(Self.navigator(in: 1), count: 3))
            Issue.record("an append numbered from seq 1 went into a log ending at seq 2")
        } catch {
            #expect(error.sqlState == SQLState.logMoved, "\(error)")
        }
        var fresh = Numberer(seq: 2)
        try second.append(fresh.unit(Self.navigator(in: 1), count: 3))
        let events = try first.allEvents()
        #expect(events.map(\.seq) == [1, 2, 3, 4, 5])
        #expect(checkGapless(events) == nil)
    }

    /// A daemon decides its next batch before the last one's result comes back. When the last one
    /// failed because another daemon appended first, the next is numbered on the same stale end,
    /// past the failed seqs, and may fit the log's new end by chance: the fence alone would let it
    /// in, with times from before the other daemon's events. Units of the failed one's generation
    /// are refused unrun; the next generation, numbered after the other's events, goes through.
    @Test func anAppendDecidedAfterAFailedOneIsNotRun() throws {
        let (first, second) = try Self.twoLeadersAfterTwoEventsOfTheFirst()
        let (a, b) = (Self.navigators(in: 1)[0], Self.navigators(in: 1)[1])
        var stale = Numberer()
        var refused = stale.unit(a, count: 2)
        refused.generation = 7
        var decidedAfter = stale.unit(b)
        decidedAfter.generation = 7
        #expect(throws: StoreError.self) { try second.append(refused) }
        #expect(decidedAfter.events[0].seq == 3, "numbered on the log's new end by chance")
        do {
            try second.append(decidedAfter)
            Issue.record("a unit decided after a failed one of its generation was committed")
        } catch {
            #expect(error.kind == .outOfSequence, "\(error)")
            #expect(error.message.contains("decided after"), "\(error)")
        }
        var fresh = Numberer(seq: 2)
        var next = fresh.unit(b)
        next.generation = 8
        try second.append(next)
        #expect(
            try first.allEvents().map { "\($0.seq) \($0.navigator)" } == [
                "1 \(Self.navigator(in: 0))", "2 \(Self.navigator(in: 0))", "3 \(b)",
            ])
    }

    /// A daemon whose append lost the race takes the log's turn before it reads the new end
    /// (`PostgresLogWriter+Turn`): the winner's next append, numbered on the end it knows, waits
    /// while the loser appends the batch it decided again, and is refused after it; once the turn
    /// is given back, appends go on as before.
    @Test func theLoserOfARaceAppendsNextWhileTheWinnerWaits() throws {
        let (first, second) = try Self.twoLeadersAfterTwoEventsOfTheFirst()
        let (mine, theirs) = (Self.navigator(in: 0), Self.navigator(in: 1))
        var stale = Numberer()
        #expect(throws: StoreError.self) { try second.append(stale.unit(theirs, count: 2)) }
        #expect(second.lastSeq == 2, "the loser read the end past the winner's events")
        var winner = Numberer(seq: 2, revisions: [mine: 2])
        let next = winner.unit(mine)
        let outcome = Mutex<Result<Void, StoreError>?>(nil)
        let appended = DispatchSemaphore(value: 0)
        Thread {
            let result = Result { () throws(StoreError) in try first.append(next) }
            outcome.withLock { $0 = result }
            appended.signal()
        }.start()
        #expect(appended.wait(timeout: .now() + 0.3) == .timedOut, "the winner waits while the loser holds the turn")
        var again = Numberer(seq: 2)
        try second.append(again.unit(theirs, count: 3))
        second.yieldLogTurn()
        #expect(appended.wait(timeout: .now() + 5) == .success)
        let refused = try #require(outcome.withLock { $0 })
        #expect(throws: StoreError.self, "numbered before the loser's events") { try refused.get() }
        var after = Numberer(seq: 5, revisions: [mine: 2])
        try first.append(after.unit(mine))
        #expect(
            try first.allEvents().map { "\($0.seq) \($0.navigator)" } == [
                "1 \(mine)", "2 \(mine)", "3 \(theirs)", "4 \(theirs)", "5 \(theirs)", "6 \(mine)",
            ])
    }

    /// A loser that does not give the turn back holds the others' appends at most 0.5 s: they are
    /// refused then as appends that lost the race (decided again by their daemon), not as storage
    /// failures. A yield asked for before the loser's last take gives nothing back (a later loss
    /// took the turn for its own commands); the current one does.
    @Test func aTurnHeldTooLongRefusesTheOthersAsRacesUntilItIsGivenBack() throws {
        let (first, second) = try Self.twoLeadersAfterTwoEventsOfTheFirst()
        let (mine, theirs) = (Self.navigator(in: 0), Self.navigator(in: 1))
        var stale = Numberer()
        #expect(throws: StoreError.self) { try second.append(stale.unit(theirs, count: 2)) }
        var winner = Numberer(seq: 2, revisions: [mine: 2])
        do {
            try first.append(winner.unit(mine))
            Issue.record("appended while another daemon held the turn")
        } catch {
            #expect(error.lostTheLogsRace, "\(error)")
            #expect(error.code == .unavailable, "\(error)")
        }
        try second.committer.perform { writer throws(StoreError) in writer.yieldTurn(taken: 0) }
        var retried = Numberer(seq: 2, revisions: [mine: 2])
        #expect(throws: StoreError.self, "a stale yield gives nothing back") {
            try first.append(retried.unit(mine))
        }
        try second.committer.perform { writer throws(StoreError) in writer.yieldTurn(taken: 1) }
        var last = Numberer(seq: 2, revisions: [mine: 2])
        try first.append(last.unit(mine))
        #expect(try first.allEvents().map(\.seq) == [1, 2, 3])
    }

    /// A takeover's epoch bump waits for an append holding the shard (`FOR SHARE`) and an append
    /// after it is refused: an append is either in the log the new leader folds, or not at all.
    @Test func theEpochBumpOrdersAgainstAnAppendInFlight() throws {
        let place = try LogPlace(.postgres)
        _ = try Self.store(place, holding: [:])
        try Self.setShards(place, [0: 1])
        let admin = try PostgresSchemaTests.admin(place)
        try admin.execute("BEGIN")
        try admin.execute("SELECT segue_fence(ARRAY[0]::bigint[], ARRAY[1]::bigint[], 0)")
        let bumper = try PostgresSchemaTests.admin(place)
        try bumper.execute("SET lock_timeout = 200")
        #expect(throws: PostgresError.self, "the bump waits for the append's transaction") {
            try bumper.execute("UPDATE shards SET epoch = epoch + 1 WHERE shard = 0")
        }
        try admin.execute("COMMIT")
        try bumper.execute("UPDATE shards SET epoch = epoch + 1 WHERE shard = 0")
        #expect(throws: PostgresError.self, "the old epoch is refused after the bump") {
            try admin.execute("SELECT segue_fence(ARRAY[0]::bigint[], ARRAY[1]::bigint[], 0)")
        }
    }

    /// A frame lease write of a daemon that leads shards is fenced as an append is, by the epochs
    /// it was asked under (the engine's, whatever the leadership thread holds by the time it runs):
    /// a leader whose shard was taken cannot lease frames past those its successor read, nor lower
    /// what it read, and the refusal names the shard.
    @Test(arguments: [
        Case(held: 1, stored: 1, appends: true),
        Case(held: 1, stored: 2, appends: false),
        Case(held: 2, stored: 1, appends: false),
    ])
    func aLeaseWriteNeedsTheShardsCurrentEpoch(_ c: Case) throws {
        let place = try LogPlace(.postgres)
        let store = try Self.store(place, holding: [0: c.stored, 1: 1])
        try Self.setShards(place, [0: c.stored, 1: 1])
        try store.raiseLease(shards: [1: 1], to: 50)
        try Self.setLease(place, shard: 0, to: 50)
        let asked: [Int: Int64] = [0: c.held ?? 0, 1: 1]
        for write in ["raise", "lower"] {
            do throws(StoreError) {
                if write == "raise" {
                    try store.raiseLease(shards: asked, to: 80)
                } else {
                    try store.lowerLease(shards: asked, from: 80, to: 60)
                }
                #expect(c.appends, "\(write) with epoch \(c.held ?? 0) while shards says \(c.stored)")
            } catch {
                #expect(!c.appends, "\(error)")
                #expect(error.sqlState == SQLState.fenced, "\(error)")
                #expect(error.message.contains("another daemon took shard(s) 0 (a newer epoch)"), "\(error)")
            }
        }
        let expected: Int64 = c.appends ? 60 : 50
        #expect(try Self.lease(store, shard: 0) == expected, "shard 0's row: both writes or neither")
        #expect(try Self.lease(store, shard: 1) == expected, "shard 1's row, held throughout: the same")
    }

    /// A graceful stop gives back the rest of its lease shard by shard: one shard taken by another
    /// daemon in the meantime keeps its row (its successor's), and the others are still lowered,
    /// so their successors need not wait the lease out.
    @Test func aLoweringCutsBackTheShardsStillLedWhenOneWasTaken() throws {
        let place = try LogPlace(.postgres)
        let store = try Self.store(place, holding: [0: 1, 1: 1])
        try Self.setShards(place, [0: 1, 1: 1])
        try store.raiseLease(shards: [0: 1, 1: 1], to: 80)
        try Self.setShards(place, [0: 2, 1: 1])
        #expect {
            try store.lowerLease(shards: [0: 1, 1: 1], from: 80, to: 60)
        } throws: { error in
            let error = error as? StoreError
            return error?.sqlState == SQLState.fenced
                && error?.message.contains("took shard(s) 0 (a newer epoch)") == true
                && error?.message.contains("the other shards' leases were cut back") == true
        }
        #expect(try Self.lease(store, shard: 0) == 80, "the taken shard's row stays as its successor read it")
        #expect(try Self.lease(store, shard: 1) == 60, "the shard still led is cut back")
    }

    /// A lease write during a takeover's epoch bump waits for it (`FOR SHARE`) and then sees the new
    /// epoch: refused, the row the new leader reads is the one it will keep reading.
    @Test func aLeaseWriteWaitsForAnEpochBumpAndIsRefusedAfterIt() throws {
        let place = try LogPlace(.postgres)
        let store = try Self.store(place, holding: [0: 1])
        try Self.setShards(place, [0: 1])
        try store.raiseLease(shards: [0: 1], to: 50)
        let takeover = try PostgresSchemaTests.admin(place)
        try takeover.execute("BEGIN")
        try takeover.execute("UPDATE shards SET epoch = epoch + 1 WHERE shard = 0")
        let written = Mutex<Result<Void, StoreError>?>(nil)
        let writer = Thread {
            let result = Result { () throws(StoreError) in try store.raiseLease(shards: [0: 1], to: 110) }
            written.withLock { $0 = result }
        }
        writer.start()
        usleep(300_000)
        #expect(written.withLock { $0 == nil }, "the write waits for the bump's transaction")
        try takeover.execute("COMMIT")
        var waited = 0
        while written.withLock({ $0 == nil }), waited < 500 {
            usleep(10_000)
            waited += 1
        }
        let result = try #require(written.withLock { $0 })
        #expect(throws: StoreError.self, "refused once the bump committed") { try result.get() }
        if case .failure(let error) = result { #expect(error.sqlState == SQLState.fenced, "\(error)") }
        #expect(try Self.lease(store, shard: 0) == 50)
    }

    static func lease(_ store: PostgresEventStore, shard: Int) throws -> Int64? {
        try store.snapshot(of: FrameLeaseRows.name(shard: shard), atOrBefore: .max)?.state["frame"]?.int64Value
    }

    static func setLease(_ place: LogPlace, shard: Int, to frame: Int64) throws {
        let admin = try PostgresSchemaTests.admin(place)
        try admin.execute(
            "INSERT INTO snapshots (navigator, seq, revision, state) VALUES ('\(FrameLeaseRows.name(shard: shard))', "
                + "9223372036854775807, 0, '{\"frame\":\(frame)}') ON CONFLICT (navigator, seq) DO UPDATE SET state = EXCLUDED.state"
        )
    }
}
