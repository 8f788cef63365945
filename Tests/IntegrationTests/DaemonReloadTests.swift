import Foundation
import SegueCore
import Testing

/// What SIGHUP says of settings that wait for a restart, against the real daemon.
@Suite(.ownThreads) struct DaemonReloadTests {
    /// A log keeps the frame rate it was started at: a reload that changes `frameRate` must not tell
    /// the operator it applies on restart when that restart would exit 78.
    @Test func aFrameRateTheLogWouldRefuseIsSaidAtTheReload() throws {
        let dir = DaemonProcess.temporaryDirectory()
        let config = try Reliability.writeConfig(["frameRate": 60], in: dir)
        let daemon = try DaemonProcess(frameRate: nil, arguments: ["--config", config])
        defer { daemon.stop() }
        try TestClient(endpoint: daemon.commandEndpoint).ok(["cmd": "create", "navigator": "main", "root": "Home"])

        _ = try Reliability.writeConfig(["frameRate": 30], in: dir)
        Self.reload(daemon, until: "only applied on restart")
        #expect(
            daemon.log.contains(
                "Changed in \(config) but only applied on restart: $.frameRate. A restart with this file would be "
                    + "refused (exit 78): the log numbers its frames at 60 Hz (navigator \"main\" was created at that "
                    + "rate), not 30 Hz"), "\(daemon.log)")

        // The warning tells the truth: the restart with that file is refused.
        #expect(daemon.stop() == 0)
        let refused = try daemon.restarted(frameRate: 30, waitReady: false)
        #expect(refused.exitStatus(within: .seconds(20)) == 78, "\(refused.log)")
    }

    /// A flag wins over the file at a reload as at start-up, and the reload says which values it kept.
    @Test func aValueTheCommandLineSetsIsSaidToBeKept() throws {
        let dir = DaemonProcess.temporaryDirectory()
        let config = try Reliability.writeConfig(["logLevel": "info"], in: dir)
        let daemon = try DaemonProcess(arguments: ["--config", config, "--log-level", "notice"])
        defer { daemon.stop() }
        _ = try Reliability.writeConfig(["logLevel": "debug"], in: dir)
        Self.reload(daemon, until: "Reloaded ")
        #expect(
            daemon.log.contains(
                "Reloaded \(config): nothing that applies live has changed. Kept as the command line sets them (the "
                    + "file says otherwise): logLevel."), "\(daemon.log)")
    }

    /// SIGHUP, then up to 10 s for `text` in the log.
    static func reload(_ daemon: DaemonProcess, until text: String) {
        kill(daemon.pid, SIGHUP)
        let deadline = ContinuousClock.now + .seconds(10)
        while !daemon.log.contains(text), ContinuousClock.now < deadline { usleep(20_000) }
    }
}
