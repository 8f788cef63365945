import Foundation
import PostgresTestSupport
import SegueCore
import Synchronization
import Testing

@testable import SeguePostgres
@testable import SegueStore

/// The server itself going away: crashed (`pg_ctl stop -m immediate`) under appends, down when the
/// store opens, out of disk. Each test runs a server of its own, since it stops or fills it.
@Suite struct PostgresServerFaultTests {
    static func privateServer() throws -> PostgresTestServer {
        _ = try LogPlace.server()  // cancels (skips) the test when PostgreSQL is not installed
        return try PostgresTestServer.start()
    }

    /// Producers that append one-event units, renumbering from `lastSeq` after every failure, and
    /// record what was acknowledged and what failed.
    final class Producers: @unchecked Sendable {
        let store: PostgresEventStore
        let lock = NSLock()
        var acknowledged: [Int64] = []
        var failures: [StoreError] = []
        let stop = Atomic<Bool>(false)

        init(store: PostgresEventStore) { self.store = store }

        func run(threads: Int) -> [Thread] {
            (0..<threads).map { index in
                let thread = Thread { [self] in produce("nav-\(index)") }
                thread.start()
                return thread
            }
        }

        private func produce(_ navigator: String) {
            while !stop.load(ordering: .relaxed) {
                lock.lock()
                let seq = store.lastSeq + 1
                let revision = ((try? store.lastRevision(of: navigator)) ?? 0) + 1
                lock.unlock()
                let event = EventRecord(
                    seq: seq, navigator: navigator, revision: revision, type: "transition.started", frame: seq,
                    time: seq, command: "c\(navigator)-\(revision)", data: ["n": .int(seq)])
                do throws(StoreError) {
                    try store.append(AppendUnit(events: [event], commandID: event.command, navigator: navigator))
                    lock.withLock { acknowledged.append(seq) }
                } catch {
                    lock.withLock { failures.append(error) }
                    usleep(5_000)
                }
            }
        }
    }

    @Test func aServerCrashUnderAppendsLosesNothingAcknowledgedAndServiceResumes() throws {
        let server = try Self.privateServer()
        defer { server.remove() }
        let store = try PostgresEventStore(conninfo: server.conninfo(), durability: .full)
        let producers = Producers(store: store)
        let threads = producers.run(threads: 4)
        usleep(400_000)
        try server.stop(mode: "immediate")
        usleep(300_000)
        let duringOutage = producers.lock.withLock { producers.acknowledged.count }
        try server.restart()
        // Service resumes by itself: acknowledgements after the restart.
        var resumed = false
        for _ in 0..<500 where !resumed {
            usleep(10_000)
            resumed = producers.lock.withLock { producers.acknowledged.count } > duringOutage + 20
        }
        producers.stop.store(true, ordering: .relaxed)
        while threads.contains(where: { !$0.isFinished }) { usleep(10_000) }
        #expect(resumed, "no append succeeded after the server came back")
        let failures = producers.lock.withLock { producers.failures }
        #expect(!failures.isEmpty, "the outage failed no append")
        #expect(failures.allSatisfy { $0.code == .unavailable || $0.code == .conflict }, "\(failures.prefix(3))")
        store.close()
        let reopened = try PostgresEventStore(conninfo: server.conninfo())
        let events = try reopened.allEvents()
        #expect(checkGapless(events) == nil)
        let stored = Set(events.map(\.seq))
        let lost = producers.lock.withLock { producers.acknowledged.filter { !stored.contains($0) } }
        #expect(lost.isEmpty, "acknowledged seqs lost in the crash: \(lost.prefix(10))")
    }

    /// A restart ends every session; the writer's, idle since, is found ended before its next use
    /// (a standby's first lease write after a takeover) rather than by that write failing. The
    /// server's parting FATAL reaches the notice handler then, not minutes later.
    @Test func aSessionEndedWhileIdleIsReplacedBeforeItsNextUse() throws {
        let server = try Self.privateServer()
        defer { server.remove() }
        let notices = Mutex<[PostgresNotice]>([])
        var settings = try ConnectionSettings(conninfo: server.conninfo())
        settings.notices = PostgresNoticeHandler { notice in notices.withLock { $0.append(notice) } }
        let store = try PostgresEventStore(settings: settings)
        defer { store.close() }
        var numberer = Numberer()
        try store.append(numberer.unit("main"))
        try store.raiseLease(shards: nil, to: 100)
        #expect(try store.events(after: 0).count == 1)
        try server.stop(mode: "fast")
        try server.restart()
        usleep(200_000)  // past the writer's idle check (100 ms)
        notices.withLock { $0.removeAll() }
        try store.raiseLease(shards: nil, to: 200)
        try store.saveSnapshots([])
        #expect(notices.withLock { $0 }.contains { $0.sqlState == "57P01" }, "\(notices.withLock { $0 })")
        try store.append(numberer.unit("main"))
        #expect(store.lastSeq == 2)
        #expect(try store.events(after: 0).count == 2)
    }

    @Test func theServerDownAtOpenIsWaitedForWithProgressReports() throws {
        let server = try Self.privateServer()
        defer { server.remove() }
        try server.stop()
        let attempts = Mutex<[PostgresOpenAttempt]>([])
        let restarted = Atomic<Bool>(false)
        let restarter = Thread {
            usleep(800_000)
            try? server.restart()
            restarted.store(true, ordering: .releasing)
        }
        restarter.start()
        let retry = PostgresOpenRetry(
            firstDelay: .milliseconds(100), longestDelay: .milliseconds(400), giveUpAfter: .seconds(60))
        let store = try PostgresEventStore(conninfo: server.conninfo(), retry: retry) { attempt in
            attempts.withLock { $0.append(attempt) }
            return true
        }
        let wasRestarted = restarted.load(ordering: .acquiring)
        #expect(wasRestarted)
        let seen = attempts.withLock { $0 }
        #expect(seen.count >= 2)
        #expect(seen.allSatisfy { $0.error.code == .unavailable && $0.error.message.contains("Cannot connect") })
        #expect(seen.map(\.attempt) == Array(1...seen.count))
        var numberer = Numberer()
        try store.append(numberer.unit("main"))
        #expect(store.lastSeq == 1)
    }

    /// Another session holds the schema's lock past the lock timeout (another daemon of the log
    /// migrating a large log): the open says so and tries again until the lock is free.
    @Test func anOpenWaitsOutAMigrationHeldByAnotherSession() throws {
        let place = try LogPlace(.postgres)
        try place.open().close()
        // Handed to the releasing thread, and not touched here again.
        nonisolated(unsafe) let admin = try PostgresSchemaTests.admin(place)
        try admin.execute("BEGIN; LOCK TABLE schema_version IN ACCESS EXCLUSIVE MODE")
        let releaser = Thread {
            usleep(1_000_000)
            _ = try? admin.execute("COMMIT")
        }
        releaser.start()
        let attempts = Mutex<[PostgresOpenAttempt]>([])
        let retry = PostgresOpenRetry(
            firstDelay: .milliseconds(100), longestDelay: .milliseconds(200), giveUpAfter: .seconds(30))
        let store = try PostgresEventStore(
            settings: ConnectionSettings(conninfo: place.conninfo!), lockTimeout: .milliseconds(200), retry: retry
        ) { attempt in
            attempts.withLock { $0.append(attempt) }
            return true
        }
        let seen = attempts.withLock { $0 }
        #expect(!seen.isEmpty)
        #expect(seen.allSatisfy { $0.error.sqlState == SQLState.lockNotAvailable })
        var numberer = Numberer()
        try store.append(numberer.unit("main"))
        #expect(store.lastSeq == 1)
    }

    @Test func faultsThatWaitingCannotClearFailAtOnce() throws {
        let server = try LogPlace.server()
        let reports = Mutex(0)
        do {
            _ = try PostgresEventStore(conninfo: server.conninfo(database: "no_such_database"), retry: .untilStopped) {
                _ in
                reports.withLock { $0 += 1 }
                return true
            }
            Issue.record("a missing database was opened")
        } catch {
            #expect(error.sqlState == SQLState.invalidCatalogName)
            #expect(error.message.contains("does not exist"))
        }
        #expect(reports.withLock { $0 } == 0)
    }
}
