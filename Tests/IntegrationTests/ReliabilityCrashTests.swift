import Foundation
import PostgresTestSupport
import Testing

/// The CI-sized run of `scripts/crash-daemon.sh`: 16 clients, SIGKILL at random moments, restart,
/// and the full check of acknowledged commands, published events, gapless seqs and revisions, fold
/// equal to state and recovery of interactive transitions (docs/reliability.md). The script itself
/// runs 100 rounds and more by hand. Both durabilities: `relaxed` replies `ok` once the events are in
/// the WAL, unsynced, which a SIGKILL of segued must not lose either (only a power loss may).
@Suite(.ownThreads, .serialized, .choosesItsBackends) struct ReliabilityCrashTests {
    @Test(arguments: ["full", "relaxed"])
    func tenKilledRoundsLoseNothingAcknowledged(durability: String) throws {
        let summary = try Self.crashRounds(10, environment: ["CRASH_DURABILITY": durability])
        #expect(summary.contains("rounds=10 durability=\(durability) "), "\(summary)")
    }

    /// The same on PostgreSQL, on a server of its own: 20 rounds of SIGKILL of segued under load,
    /// nothing acknowledged lost.
    @Test func twentyKilledRoundsOnPostgreSQLLoseNothingAcknowledged() throws {
        _ = try StoreBackend.server()
        let server = try PostgresTestServer.start()
        defer { server.remove() }
        let summary = try Self.crashRounds(
            20, environment: ["CRASH_STORE_URL": StoreBackend.url(server, database: "postgres")])
        #expect(summary.contains("rounds=20 durability=full "), "\(summary)")
    }

    /// Rounds that kill the PostgreSQL server (`pg_ctl stop -m immediate`) under load instead of
    /// segued, and start it again: commands in the outage get `unavailable`, segued stores commands
    /// again by itself, nothing acknowledged is lost (the script checks all three).
    @Test func tenRoundsKillingThePostgreSQLServerLoseNothingAcknowledged() throws {
        _ = try StoreBackend.server()
        let server = try PostgresTestServer.start()
        defer { server.remove() }
        let summary = try Self.crashRounds(
            10,
            environment: [
                "CRASH_STORE_URL": StoreBackend.url(server, database: "postgres"), "CRASH_PG_DIR": server.directory,
                "CRASH_SERVER_KILLS": "3",
            ])
        #expect(summary.contains("rounds=10 durability=full "), "\(summary)")
        #expect(summary.contains(" server_rounds=3 "), "\(summary)")
        #expect(Self.count("outage_unavailable", in: summary) > 0, "\(summary)")
    }

    static func crashRounds(_ rounds: Int, environment: [String: String]) throws -> String {
        let script = Reliability.repositoryRoot.appendingPathComponent("scripts/crash-daemon.sh").path
        let result = try Reliability.run(
            "/bin/bash", [script, String(rounds)],
            environment: [
                "SEGUED": DaemonProcess.binary("segued"), "CRASH_CLIENTS": "16", "CRASH_SNAPSHOT_EVERY": "100",
            ].merging(environment) { $1 })
        let summary = result.output.split(separator: "\n").first { $0.hasPrefix("SUMMARY") }.map(String.init) ?? ""
        print(summary)
        #expect(result.status == 0, "crash-daemon.sh failed:\n\(result.output)")
        #expect(summary.contains(" losses=0 violations=0 final_exit=0"), "\(result.output)")
        // The rounds did real work: commands were acknowledged and checked.
        #expect(count("acked", in: summary) >= 100, "\(summary)")
        return summary
    }

    static func count(_ key: String, in summary: String) -> Int {
        summary.split(separator: " ").first { $0.hasPrefix(key + "=") }.flatMap { Int($0.dropFirst(key.count + 1)) }
            ?? 0
    }
}
