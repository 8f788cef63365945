import Foundation
import PostgresTestSupport
import SegueCore
import Testing

@testable import SeguePostgres
@testable import SegueStore

/// Reads that must not wait (`PostgresEventStore.limitReadWaits`, the frame loop's): a server that
/// says nothing fails the read within its bound, reads then pause and fail at once, and the session
/// is made again in the background.
@Suite struct PostgresBoundedReadTests {
    static let bound = Duration.milliseconds(200)

    /// `answerTimeout` on a connection: a statement the server sits on for 2 s fails after the bound,
    /// as a timeout, and the connection is not used again.
    @Test func aStatementTheServerSitsOnFailsAfterTheAnswerTimeout() throws {
        let place = try LogPlace(.postgres)
        let connection = try PostgresConnection(try ConnectionSettings(conninfo: place.conninfo!))
        connection.answerTimeout = Self.bound
        #expect(try connection.query("SELECT 1::int8").int64(0, 0) == 1, "a quick statement is answered as before")
        let started = ContinuousClock.now
        let error = #expect(throws: PostgresError.self) { try connection.query("SELECT pg_sleep(2)") }
        let took = ContinuousClock.now - started
        #expect(error?.timedOut == true && error?.connectionLost == true, "\(String(describing: error))")
        #expect(took >= Self.bound && took < .seconds(1), "failed after \(took)")
        #expect(connection.isBroken)
    }

    /// The store's reader against an operator's `LOCK TABLE`: the read gives up within the bound
    /// (the server's own `lock_timeout`), reads during the pause fail at once, and once the lock is
    /// gone and the pause over they succeed on the same session.
    @Test func aReadBehindALockGivesUpAndReadsPauseAfterIt() throws {
        let place = try LogPlace(.postgres)
        let store = try PostgresEventStore(conninfo: place.conninfo!, durability: .full)
        var numberer = Numberer()
        try store.append(numberer.unit("main", count: 2))
        store.limitReadWaits(to: Self.bound)
        #expect(try store.allEvents().count == 2)
        let session = try Self.readerPID(store)

        let admin = try PostgresSchemaTests.admin(place)
        try admin.execute("BEGIN; LOCK TABLE events IN ACCESS EXCLUSIVE MODE")
        let (first, firstTook) = Self.failure { try store.allEvents() }
        #expect(first?.code == .unavailable, "\(String(describing: first))")
        #expect(firstTook < .seconds(1), "the locked read gave up after \(firstTook)")
        let (paused, pausedTook) = Self.failure { try store.command("x") }
        #expect(paused?.message.contains("reads wait") == true, "\(String(describing: paused))")
        #expect(pausedTook < .milliseconds(50), "a read in the pause fails at once: \(pausedTook)")
        try admin.execute("ROLLBACK")

        usleep(1_100_000)
        #expect(try store.allEvents().count == 2)
        #expect(try Self.readerPID(store) == session, "the server's lock error left the session usable")
    }

    /// A server process that stops answering (`SIGSTOP`, as a host cut off by the network or a
    /// stalled disk looks): the read gives up within the bound and the session is dropped; after the
    /// pause the next read gets a session made in the background.
    @Test func aSessionThatStopsAnsweringIsReplacedInTheBackground() throws {
        let place = try LogPlace(.postgres)
        let store = try PostgresEventStore(conninfo: place.conninfo!, durability: .full)
        var numberer = Numberer()
        try store.append(numberer.unit("main", count: 3))
        store.limitReadWaits(to: Self.bound)
        let stopped = try Self.readerPID(store)
        kill(stopped, SIGSTOP)
        defer { kill(stopped, SIGCONT) }

        let (error, took) = Self.failure { try store.allEvents() }
        #expect(error?.code == .unavailable, "\(String(describing: error))")
        #expect(error?.message.contains("sent nothing for 200 ms") == true, "\(String(describing: error))")
        #expect(took < .seconds(1), "the silent read gave up after \(took)")

        usleep(1_100_000)
        #expect(try store.allEvents().count == 3, "read on a new session while the old one is still stopped")
        #expect(try Self.readerPID(store) != stopped)
    }

    /// The server process of the store's shared reader.
    static func readerPID(_ store: PostgresEventStore) throws -> Int32 {
        try store.read { reader throws(StoreError) in try reader.withConnection { $0.backendPID } }
    }

    /// The store error `body` fails with, and how long it took.
    static func failure(_ body: () throws -> some Any) -> (StoreError?, Duration) {
        let started = ContinuousClock.now
        do {
            _ = try body()
            return (nil, ContinuousClock.now - started)
        } catch {
            return (error as? StoreError, ContinuousClock.now - started)
        }
    }
}
