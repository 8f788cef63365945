import PostgresTestSupport
import Testing

@testable import SeguePostgres
@testable import SegueStore

/// `PostgresConnection.transaction`: the steps of one pipeline as one implicit transaction that the
/// server commits at the Sync, against a real server.
@Suite struct PostgresTransactionTests {
    /// A connection in a schema of its own with a table `t` whose key is checked at commit, so
    /// that a duplicate fails at the Sync rather than at its statement.
    static func connection() throws -> PostgresConnection {
        let place = try LogPlace(.postgres)
        let connection = try PostgresSchemaTests.admin(place)
        try connection.execute(
            "CREATE TABLE t (k bigint, CONSTRAINT t_k UNIQUE (k) DEFERRABLE INITIALLY DEFERRED)")
        return connection
    }

    static let insert = PreparedStatement("t_insert", "INSERT INTO t (k) VALUES ($1)", [.int8])

    static func insert(_ key: Int64) -> PipelineStep {
        var parameters = PostgresParameters()
        parameters.append(key)
        return .prepared(insert, parameters)
    }

    static func keys(_ connection: PostgresConnection) throws -> [Int64] {
        let rows = try connection.query("SELECT k FROM t ORDER BY k")
        return try (0..<rows.rowCount).map { try rows.int64($0, 0) ?? -1 }
    }

    enum Expected: Sendable {
        case committed
        case refused(sqlState: String)
    }

    @Test(
        arguments: [
            // Every step succeeds: the Sync commits them all.
            ([1, 2, 3], Expected.committed, [1, 2, 3]),
            // A duplicate the deferred key finds only at commit: the Sync fails, nothing is kept.
            ([1, 2, 1], Expected.refused(sqlState: "23505"), []),
        ] as [([Int64], Expected, [Int64])])
    func theStepsCommitAtTheSyncOrNotAtAll(keys: [Int64], expected: Expected, stored: [Int64]) throws {
        let connection = try Self.connection()
        let outcome = connection.transaction(keys.map(Self.insert), afterSending: nil)
        switch (outcome, expected) {
        case (.success(let results), .committed):
            #expect(results.count == keys.count)
        case (.failure(let error), .refused(let sqlState)):
            #expect(error.sqlState == sqlState)
            #expect(!error.connectionLost)
        default:
            Issue.record("unexpected outcome \(outcome)")
        }
        #expect(!connection.inTransaction)
        #expect(try Self.keys(connection) == stored)
    }

    /// A step the server refuses fails the transaction with that step's error; the steps after it
    /// are skipped and nothing is kept. The connection takes the next statement as usual.
    @Test func aRefusedStepFailsTheWholeTransaction() throws {
        let connection = try Self.connection()
        let outcome = connection.transaction(
            [Self.insert(1), .query("INSERT INTO missing VALUES (1)"), Self.insert(2)], afterSending: nil)
        let error = try #require(outcome.failure)
        #expect(error.sqlState == "42P01")
        #expect(error.statement == "INSERT INTO missing VALUES (1)")
        #expect(!connection.inTransaction)
        #expect(try Self.keys(connection) == [])
        #expect(connection.transaction([Self.insert(5)], afterSending: nil).failure == nil)
        #expect(try Self.keys(connection) == [5])
    }

    /// A statement first used after a step that failed: the server skips its Prepare with the rest,
    /// so the connection forgets it was prepared and prepares it again the next time.
    @Test func aPrepareSkippedAfterAFailedStepIsSentAgainNextTime() throws {
        let connection = try Self.connection()
        let shifted = PreparedStatement("t_insert_shifted", "INSERT INTO t (k) VALUES ($1 + 100)", [.int8])
        func step(_ key: Int64) -> PipelineStep {
            var parameters = PostgresParameters()
            parameters.append(key)
            return .prepared(shifted, parameters)
        }
        let refused = connection.transaction([.query("INSERT INTO missing VALUES (1)"), step(1)], afterSending: nil)
        #expect(refused.failure?.sqlState == "42P01")
        let outcome = connection.transaction([step(2), Self.insert(3)], afterSending: nil)
        #expect(outcome.failure == nil)
        #expect((try? outcome.get())?.count == 2)
        #expect(try Self.keys(connection) == [3, 102])
    }

    /// The connection lost after everything was sent: whether the server committed is unknown.
    @Test func aConnectionLostBeforeTheSyncAnsweredLeavesTheOutcomeUnknown() throws {
        let connection = try Self.connection()
        let outcome = connection.transaction([Self.insert(1)]) { connection.simulateConnectionLoss() }
        let error = try #require(outcome.failure)
        #expect(error.connectionLost)
        #expect(connection.isBroken)
    }
}
