import Foundation
import SegueCore
import Testing

/// SIGTERM during start-up, as systemd sends it to a unit stopped while it starts.
@Suite(.ownThreads) struct StartUpStopTests {
    /// Recovery waits up to a second for subscribers before it publishes what it resolved. A stop
    /// asked for then ends the start: no `Ready`, no READY=1, exit 0, and what recovery appended is
    /// in the log.
    @Test func aStopDuringRecoveryEndsTheStartWithoutReady() throws {
        let daemon = try DaemonProcess()
        let client = try TestClient(endpoint: daemon.commandEndpoint)
        try client.ok(["cmd": "create", "navigator": "main", "root": "Home"])
        try client.ok(["cmd": "push", "navigator": "main", "screen": "Detail", "animator": ["duration": 0.2]])
        #expect(daemon.stop(signal: SIGKILL) == 128 + SIGKILL)
        usleep(400_000)  // past the push's end: the restart has a completion to recover

        let restarted = try daemon.restarted(waitReady: false)
        let opened = ContinuousClock.now + .seconds(20)
        while !restarted.log.contains("Opened the log"), ContinuousClock.now < opened { usleep(5_000) }
        try #require(restarted.log.contains("Opened the log"), "\(restarted.log)")
        kill(restarted.pid, SIGTERM)
        #expect(restarted.exitStatus(within: .seconds(20)) == 0, "\(restarted.log)")
        let log = restarted.log
        #expect(log.contains("Received SIGTERM"), "\(log)")
        #expect(log.contains("Recovered 1 event at start-up"), "\(log)")
        #expect(!log.contains("Ready:"), "a stopped start reported ready:\n\(log)")
        #expect(log.contains("Stopped cleanly."), "\(log)")

        let export = try Cli.run(["export", "--data-dir", daemon.logLocation])
        #expect(
            export.stdout.contains(#""type":"transition.completed""#), "the recovered end is durable: \(export.stdout)")
    }
}
