import Foundation
import PostgresTestSupport
import SegueCore
import Synchronization
import Testing

@testable import SeguePostgres
@testable import SegueStore

/// Faults of the server and the connection: appends fail `unavailable`, nothing unstored is
/// acknowledged, a lost commit outcome is read back, and service resumes by itself.
@Suite struct PostgresFaultTests {
    /// The writer session's server process.
    static func writerPID(_ store: PostgresEventStore) throws -> Int32 {
        try store.withWriter { writer throws(StoreError) in try writer.liveSession().backendPID }
    }

    /// Breaks the writer's connection once its next batch is sent, before the answer: the batch's
    /// commit outcome is lost.
    static func loseTheAnswerToTheNextBatch(_ store: PostgresEventStore) throws {
        try store.withWriter { writer in
            writer.afterSendingForTesting = { connection in
                connection.simulateConnectionLoss()
                writer.afterSendingForTesting = nil
            }
        }
    }

    /// Waits (up to 10 s) until `pid` is waiting for a lock: its batch is in flight, held back.
    static func waitUntilBlocked(_ admin: PostgresConnection, pid: Int32) throws {
        var parameters = PostgresParameters()
        parameters.append(pid)
        for _ in 0..<1000 {
            let state = try admin.query("SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1", parameters)
            if state.rowCount > 0, try state.string(0, 0) == "Lock" { return }
            usleep(10_000)
        }
        Issue.record("the writer never waited for the lock")
    }

    /// What a store's writer said of its reconnections (`PostgresEventStore`'s `reconnected`).
    final class Reconnections: Sendable {
        private let seen = Mutex<[PostgresReconnection]>([])
        var readBacks: [PostgresReconnection.ReadBack?] { seen.withLock { $0.map(\.readBack) } }

        /// A store on `place` whose reconnections are noted here.
        func store(_ place: LogPlace) throws -> PostgresEventStore {
            try PostgresEventStore(
                settings: ConnectionSettings(conninfo: place.conninfo!),
                reconnected: { reconnection in self.seen.withLock { $0.append(reconnection) } })
        }
    }

    @Test func aConnectionKilledMidBatchFailsItUnavailableAndTheNextBatchReconnects() throws {
        let place = try LogPlace(.postgres)
        let store = try PostgresEventStore(conninfo: place.conninfo!, durability: .full)
        var numberer = Numberer()
        try store.append(numberer.unit("main", count: 2))
        let pid = try Self.writerPID(store)
        let admin = try PostgresSchemaTests.admin(place)
        try admin.execute("BEGIN; LOCK TABLE events IN EXCLUSIVE MODE")
        let outcome = Mutex<Result<Void, StoreError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        store.submit(numberer.unit("main", count: 3, commandID: "killed")) { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        try Self.waitUntilBlocked(admin, pid: pid)
        var parameters = PostgresParameters()
        parameters.append(pid)
        try admin.query("SELECT pg_terminate_backend($1, 5000)", parameters)
        done.wait()
        try admin.execute("ROLLBACK")
        let error = try #require(outcome.withLock { $0 }?.failure)
        #expect(error.code == .unavailable)
        #expect(store.lastSeq == 2)
        #expect(try store.command("killed") == nil)
        // The caller renumbers from lastSeq; the writer has a new session.
        var renumbered = Numberer(seq: 2, revisions: ["main": 2])
        try store.append(renumbered.unit("main", count: 3, commandID: "again"))
        #expect(try Self.writerPID(store) != pid)
        #expect(checkGapless(try store.allEvents()) == nil)
        #expect(store.lastSeq == 5)
    }

    /// The connection breaks after the whole batch was sent. Either the server had committed it
    /// (then the read-back finds it and the units succeed) or it had not (it was waiting for a
    /// lock: the read-back ends that server process first, then finds nothing).
    @Test(arguments: [true, false])
    func aCommitWhoseOutcomeWasLostIsReadBack(committedBeforeTheLoss: Bool) throws {
        let place = try LogPlace(.postgres)
        let reconnections = Reconnections()
        let store = try reconnections.store(place)
        var numberer = Numberer()
        try store.append(numberer.unit("main"))
        nonisolated(unsafe) let admin = try PostgresSchemaTests.admin(place)
        if !committedBeforeTheLoss { try admin.execute("BEGIN; LOCK TABLE events IN EXCLUSIVE MODE") }
        try store.withWriter { writer in
            writer.afterSendingForTesting = { connection in
                if committedBeforeTheLoss {
                    // Until the batch is visible to another session: committed on the server.
                    for _ in 0..<500 {
                        let found = try? admin.query("SELECT count(*)::bigint FROM events WHERE seq = 3")
                        if (try? found?.int64(0, 0)) == 1 { break }
                        usleep(10_000)
                    }
                } else {
                    try? Self.waitUntilBlocked(admin, pid: connection.backendPID)
                }
                connection.simulateConnectionLoss()
                writer.afterSendingForTesting = nil
            }
        }
        let unit = numberer.unit("main", count: 2, commandID: "lost", reply: ["ok": true])
        let result = Result { () throws(StoreError) in try store.append(unit) }
        if !committedBeforeTheLoss { try admin.execute("ROLLBACK") }
        if committedBeforeTheLoss {
            try result.get()
            #expect(store.lastSeq == 3)
            #expect(try store.reply(forCommand: "lost") == ["ok": true])
        } else {
            #expect(result.failure?.code == .unavailable)
            #expect(store.lastSeq == 1)
            #expect(try store.command("lost") == nil)
        }
        // Said once, with what the read-back found: a cut that fails nothing still leaves a trace.
        #expect(
            reconnections.readBacks
                == [.init(seqs: 2...3, commands: 1, stored: committedBeforeTheLoss)])
        var next = Numberer(seq: store.lastSeq, revisions: ["main": store.lastSeq])
        try store.append(next.unit("main"))
        #expect(checkGapless(try store.allEvents()) == nil)
        #expect(reconnections.readBacks.count == 1)
    }

    /// A session the server ended while the writer was idle is found lost before the next append,
    /// which runs on a new one: a reconnection with nothing to read back.
    @Test func aSessionEndedWhileIdleIsMadeAgainAndSaid() throws {
        let place = try LogPlace(.postgres)
        let reconnections = Reconnections()
        let store = try reconnections.store(place)
        var numberer = Numberer()
        try store.append(numberer.unit("main"))
        let pid = try Self.writerPID(store)
        var parameters = PostgresParameters()
        parameters.append(pid)
        try PostgresSchemaTests.admin(place).query("SELECT pg_terminate_backend($1, 5000)", parameters)
        usleep(150_000)  // past `idleCheckAfter`, so the next append looks before it sends
        try store.append(numberer.unit("main"))
        #expect(reconnections.readBacks == [nil])
        #expect(store.lastSeq == 2)
    }

    /// A batch whose outcome was lost, on seqs that another batch holds by the time it is read
    /// back: the read-back must not take those events for its own. (A daemon whose commit failed
    /// rolls back and numbers new events on the same seqs; when the failed batch had committed
    /// after all, and the new one has no command ids, a count of the seqs' rows would match.)
    @Test func aLostCommitWhoseSeqsHoldAnotherBatchIsNotTakenForIt() throws {
        let place = try LogPlace(.postgres)
        let store = try PostgresEventStore(conninfo: place.conninfo!)
        var numberer = Numberer()
        try store.append(numberer.unit("main"))
        let admin = try PostgresSchemaTests.admin(place)
        // Behind the writer's back, as a batch whose outcome it lost would have: seqs 2 and 3.
        try admin.execute(
            "INSERT INTO events (seq, navigator, revision, type, version, frame, time, command, data) VALUES "
                + "(2, 'other', 1, 'transition.started', 1, 1002, 2, 'tap'::bytea, '{}'), "
                + "(3, 'other', 2, 'transition.completed', 1, 1002, 2, 'tap'::bytea, '{}')")
        try PostgresFaultTests.loseTheAnswerToTheNextBatch(store)
        // Two clock-decided events (no command id) numbered on the same seqs.
        var renumbered = Numberer(seq: 1)
        let units = [renumbered.unit("x"), renumbered.unit("y")]
        let results = try store.withWriter { writer in writer.commit(units[...]) }
        #expect(results.count == 2 && results.allSatisfy { $0.failure?.code == .unavailable }, "\(results)")
        #expect(store.lastSeq == 3)
        #expect(try store.allEvents().map(\.navigator) == ["main", "other", "other"])
    }
}
