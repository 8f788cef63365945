import Foundation
import Testing

/// The CI-sized run of `scripts/crash-daemon.sh`: 16 clients, SIGKILL at random moments, restart,
/// and the full check of acknowledged commands, published events, gapless seqs and revisions, fold
/// equal to state and recovery of interactive transitions (docs/reliability.md). The script itself
/// runs 100 rounds and more by hand. Both durabilities: `relaxed` replies `ok` once the events are in
/// the WAL, unsynced, which a SIGKILL of segued must not lose either (only a power loss may).
@Suite(.serialized) struct ReliabilityCrashTests {
    @Test(arguments: ["full", "relaxed"])
    func tenKilledRoundsLoseNothingAcknowledged(durability: String) throws {
        let script = Reliability.repositoryRoot.appendingPathComponent("scripts/crash-daemon.sh").path
        let result = try Reliability.run(
            "/bin/bash", [script, "10"],
            environment: [
                "SEGUED": DaemonProcess.binary("segued"), "CRASH_CLIENTS": "16", "CRASH_SNAPSHOT_EVERY": "100",
                "CRASH_DURABILITY": durability,
            ])
        let summary = result.output.split(separator: "\n").first { $0.hasPrefix("SUMMARY") }.map(String.init) ?? ""
        print(summary)
        #expect(result.status == 0, "crash-daemon.sh failed:\n\(result.output)")
        #expect(summary.contains("rounds=10 durability=\(durability) "), "\(result.output)")
        #expect(summary.contains(" losses=0 violations=0 final_exit=0"), "\(result.output)")
        // The rounds did real work: commands were acknowledged and checked.
        let acked = summary.split(separator: " ").first { $0.hasPrefix("acked=") }.flatMap { Int($0.dropFirst(6)) } ?? 0
        #expect(acked >= 100, "\(summary)")
    }
}
