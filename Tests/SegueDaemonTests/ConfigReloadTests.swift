import SegueCore
import Testing

@testable import SegueDaemon

@Suite struct ConfigReloadTests {
    @Test func reloadAppliesLogLevelAnimatorsAndClientsAndReportsTheRest() throws {
        let directory = try TemporaryDirectory()
        let secret = try directory.write("server.key", TestKeys.serverSecret)
        func document(level: String, frameRate: Int, animators: String, clientKey: String) -> String {
            """
            {"logLevel": "\(level)", "frameRate": \(frameRate), "animators": \(animators),
             "security": {"curve": {"serverSecretKeyFile": "\(secret)",
                                    "clients": [{"publicKey": "\(clientKey)", "role": "observer"}]}}}
            """
        }
        let file = try directory.write(
            "segued.json", document(level: "info", frameRate: 60, animators: "[]", clientKey: TestKeys.clientPublic))
        guard case .run(let running) = try DaemonConfig.parse(arguments: ["--config", file], environment: [:]) else {
            Issue.record("expected .run")
            return
        }

        try directory.write(
            "segued.json",
            document(level: "debug", frameRate: 30, animators: #"[{"x": 1}]"#, clientKey: TestKeys.otherPublic))
        let reload = try running.reloadable(from: file)
        #expect(reload.applied == ["logLevel", "animators", "security.curve.clients"])
        #expect(reload.needsRestart == ["$.frameRate"])
        #expect(reload.frameRateOnRestart == 30, "the daemon asks the log whether a restart at 30 Hz would start")
        #expect(reload.config.logLevel == .debug)
        #expect(reload.config.animators == [["x": 1]])
        #expect(reload.config.security?.curve.clients.map(\.publicKey.z85) == [TestKeys.otherPublic])
        #expect(reload.config.frameRate == 60)

        let unchanged = try reload.config.reloadable(from: file)
        #expect(unchanged.applied == [])
        #expect(unchanged.config == reload.config)
    }

    @Test func commandLineValuesKeepWinningOverAReload() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("segued.json", #"{"logLevel": "info"}"#)
        guard
            case .run(let running) = try DaemonConfig.parse(
                arguments: ["--config", file, "--log-level", "trace", "--frame-rate", "10"], environment: [:])
        else {
            Issue.record("expected .run")
            return
        }
        try directory.write("segued.json", #"{"logLevel": "error", "frameRate": 20, "dataDir": "/elsewhere"}"#)
        let reload = try running.reloadable(from: file)
        #expect(reload.config.logLevel == .trace)
        #expect(reload.applied == [])
        #expect(reload.needsRestart == ["$.dataDir"])
        #expect(reload.keptByCommandLine == ["logLevel"], "said, so the file's change is not a mystery")
        #expect(reload.frameRateOnRestart == nil, "the flag's rate is the one a restart uses")
    }

    /// A presentation delay changed under running frontends would move `presentAt` mid-transition:
    /// it waits for a restart, and the reload says so.
    @Test func presentationDelayNeedsARestart() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("segued.json", #"{"presentationDelay": 0.05}"#)
        guard case .run(let running) = try DaemonConfig.parse(arguments: ["--config", file], environment: [:]) else {
            Issue.record("expected .run")
            return
        }
        #expect(running.presentationDelayDuration == .milliseconds(50))
        try directory.write("segued.json", #"{"presentationDelay": 0.1}"#)
        let reload = try running.reloadable(from: file)
        #expect(reload.needsRestart == ["$.presentationDelay"])
        #expect(reload.config.presentationDelay == 0.05)
    }

    /// A restart-only object names the members that changed, not just the object.
    @Test func aChangedLimitIsNamedByItsOwnPath() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("segued.json", #"{"limits": {"maxQueue": 8}, "store": {"kind": "sqlite"}}"#)
        guard case .run(let running) = try DaemonConfig.parse(arguments: ["--config", file], environment: [:]) else {
            Issue.record("expected .run")
            return
        }
        try directory.write("segued.json", #"{"limits": {"maxQueue": 9, "maxStackDepth": 50}}"#)
        #expect(try running.reloadable(from: file).needsRestart == ["$.limits.maxQueue", "$.limits.maxStackDepth"])
    }

    @Test func anInvalidFileFailsTheReloadWithItsPath() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("segued.json", #"{"logLevel": "verbose"}"#)
        var expected = ConfigError(
            .config, at: "$.logLevel",
            #"must be one of "trace", "debug", "info", "notice", "warning", "error", "critical"; got "verbose""#)
        expected.file = file
        #expect(throws: expected) { try DaemonConfig().reloadable(from: file) }
    }

    @Test func turningCurveOnNeedsARestart() throws {
        let directory = try TemporaryDirectory()
        let secret = try directory.write("server.key", TestKeys.serverSecret)
        let file = try directory.write(
            "segued.json",
            #"{"security": {"curve": {"serverSecretKeyFile": "\#(secret)", "clients": [{"publicKey": "\#(TestKeys.clientPublic)", "role": "observer"}]}}}"#
        )
        let reload = try DaemonConfig().reloadable(from: file)
        #expect(reload.needsRestart == ["$.security"])
        #expect(reload.config.security == nil)
    }
}
