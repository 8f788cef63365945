import Foundation
import Testing

@testable import SegueDaemon

/// config/segued.json, installed as /etc/segue/segued.json, is valid and says what docs/operations.md
/// says it does.
@Suite struct ConfigExampleTests {
    static let root = packageRoot

    @Test func shippedConfigPassesCheckConfig() throws {
        let file = Self.root + "/config/segued.json"
        let invocation = try DaemonConfig.parse(arguments: ["--config", file, "--check-config"], environment: [:])
        guard case .checkConfig(let config) = invocation else {
            Issue.record("expected .checkConfig, got \(invocation)")
            return
        }
        #expect(config.dataDir == "/var/lib/segue")
        #expect(config.command.map(\.description) == ["ipc:///run/segue/command.sock", "tcp://127.0.0.1:7400"])
        #expect(config.publish.map(\.description) == ["ipc:///run/segue/publish.sock", "tcp://127.0.0.1:7401"])
        #expect(config.warnings.isEmpty)
        // Every value it spells out is the default, so it documents the defaults too.
        var defaults = DaemonConfig()
        defaults.configFile = file
        defaults.dataDir = config.dataDir
        defaults.command = config.command
        defaults.publish = config.publish
        #expect(config == defaults)
    }
}
