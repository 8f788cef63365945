import Foundation
import SegueCore
import Testing

/// A log keeps the frame rate it was started with: its frames are instants at that rate. A daemon
/// started on it at another rate is refused as a config error (exit 78, which the unit does not
/// restart on), and the log is left as it was.
@Suite(.ownThreads) struct LogFrameRateTests {
    @Test(arguments: [30, 120]) func aDaemonAtAnotherRateIsRefusedAndTheLogKept(rate: Int) throws {
        let daemon = try DaemonProcess()
        let client = try TestClient(endpoint: daemon.commandEndpoint)
        #expect(try client.call(["cmd": "create", "navigator": "main", "root": "Home"])["ok"] == true)
        // In flight across the refused start: a wrong rate would move its scheduled end.
        let push = try client.call([
            "cmd": "push", "navigator": "main", "screen": "Detail", "animator": ["duration": 3],
        ])
        #expect(push["ok"] == true, "\(push)")
        #expect(daemon.stop() == 0)
        let before = try Cli.run(["export", "--data-dir", daemon.logLocation]).stdout

        let refused = try daemon.restarted(frameRate: rate, waitReady: false)
        #expect(refused.exitStatus(within: .seconds(20)) == 78, "\(refused.log)")
        #expect(
            refused.log.contains(
                "<2>segued: config error at --frame-rate: the log numbers its frames at 60 Hz (navigator \"main\" was "
                    + "created at that rate), not \(rate) Hz: start segued with --frame-rate 60"), "\(refused.log)")
        #expect(try Cli.run(["export", "--data-dir", daemon.logLocation]).stdout == before)

        let restarted = try daemon.restarted()
        defer { restarted.stop() }
        let state = try TestClient(endpoint: restarted.commandEndpoint).call(["cmd": "state", "navigator": "main"])
        #expect(state["ok"] == true, "\(state)")
    }
}
