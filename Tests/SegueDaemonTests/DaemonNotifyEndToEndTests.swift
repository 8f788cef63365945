import Foundation
import Glibc
import PostgresTestSupport
import Testing

/// The real `segued` under a stand-in systemd: the whole notify sequence over a datagram socket.
@Suite(.serialized) struct DaemonNotifyEndToEndTests {
    static var segued: String {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("segued").path), dir.path != "/" {
            dir = dir.deletingLastPathComponent()
        }
        return dir.appendingPathComponent("segued").path
    }

    @Test func readyStatusWatchdogReloadAndStop() throws {
        let listener = try NotifySocketListener()
        let dir = try TemporaryDirectory()
        let config = dir.path + "/segued.json"
        try Data(
            """
            {"dataDir": "\(dir.path)/data", "command": ["ipc://\(dir.path)/cmd.sock"],
             "publish": ["ipc://\(dir.path)/pub.sock"], "logLevel": "info"}
            """.utf8
        ).write(to: URL(fileURLWithPath: config))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.segued)
        process.arguments = ["--config", config]
        var env = ProcessInfo.processInfo.environment
        env["NOTIFY_SOCKET"] = listener.path
        env["WATCHDOG_USEC"] = "200000"  // ping every 100 ms
        process.environment = env
        let log = Pipe()
        process.standardError = log
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        let startup = try listener.receive(until: "READY=1")
        let ready = startup.last!
        #expect(ready.contains("READY=1"))
        #expect(ready.contains("STATUS=Serving on ipc://"))

        // Watchdog pings from the loop at half of WATCHDOG_USEC, and STATUS= with counts.
        var pings = 0
        var statuses: [String] = []
        let deadline = ContinuousClock.now + .seconds(1)
        while ContinuousClock.now < deadline, let message = try listener.receive(timeout: .milliseconds(500)) {
            if message == "WATCHDOG=1" { pings += 1 }
            if message.hasPrefix("STATUS=") { statuses.append(message) }
        }
        #expect(pings >= 5 && pings <= 15, "expected about 10 pings in 1 s at a 100 ms period, got \(pings)")
        #expect(statuses.contains { $0.contains("navigators") && $0.contains("seq") })
        // And where it serves, which a `*` port leaves to the daemon: systemctl status shows the latest.
        #expect(statuses.allSatisfy { $0.contains("; commands on ipc://") && $0.contains(", publishing on ipc://") })

        // SIGHUP: RELOADING=1 (with MONOTONIC_USEC), then READY=1 again.
        kill(process.processIdentifier, SIGHUP)
        let reload = try listener.receive(until: "READY=1").filter { $0 != "WATCHDOG=1" && !$0.hasPrefix("STATUS=") }
        #expect(reload.first?.contains("RELOADING=1") == true)
        #expect(reload.first?.contains("MONOTONIC_USEC=") == true)
        #expect(reload.last?.contains("STATUS=Reloaded \(config): nothing that applies live has changed.") == true)

        // A reload that fails says so in STATUS=, then in every periodic STATUS= until one applies:
        // `systemctl reload` returns before segued has read the file.
        try Data(#"{"dataDir": 1}"#.utf8).write(to: URL(fileURLWithPath: config))
        kill(process.processIdentifier, SIGHUP)
        let failed = try listener.receive(until: "READY=1").last ?? ""
        #expect(failed.contains("STATUS=Reload failed, the running configuration stays: config error in "), "\(failed)")
        let failedStatus = try Self.nextStatus(listener)
        #expect(failedStatus.contains("; the last reload failed: config error in "), "\(failedStatus)")
        // A reload to a quieter level still confirms itself.
        try Data(
            """
            {"dataDir": "\(dir.path)/data", "command": ["ipc://\(dir.path)/cmd.sock"],
             "publish": ["ipc://\(dir.path)/pub.sock"], "logLevel": "warning"}
            """.utf8
        ).write(to: URL(fileURLWithPath: config))
        kill(process.processIdentifier, SIGHUP)
        _ = try listener.receive(until: "READY=1")
        let quiet = try Self.nextStatus(listener)
        #expect(quiet.contains("navigators") && !quiet.contains("the last reload failed"), "\(quiet)")

        // SIGTERM: STOPPING=1 and a clean exit within 2 s.
        let stopAt = ContinuousClock.now
        kill(process.processIdentifier, SIGTERM)
        let stopping = try listener.receive(until: "STOPPING=1")
        #expect(stopping.last?.contains("STOPPING=1") == true)
        while process.isRunning, ContinuousClock.now - stopAt < .seconds(5) { usleep(5_000) }
        #expect(!process.isRunning)
        #expect(ContinuousClock.now - stopAt < .seconds(2))
        #expect(process.terminationStatus == 0)
        let output = String(decoding: log.fileHandleForReading.availableData, as: UTF8.self)
        #expect(output.contains("<5>segued: Ready"))
        #expect(output.contains("<5>segued: Reloaded \(config): logLevel."), "\(output)")
        // The last reload set `warning`: the notice that it stopped cleanly is not logged; its status is 0.
        #expect(!output.contains("Stopped cleanly"))
    }

    /// The next periodic STATUS= (every 5 s), past the watchdog's pings.
    static func nextStatus(_ listener: NotifySocketListener) throws -> String {
        let deadline = ContinuousClock.now + .seconds(8)
        while ContinuousClock.now < deadline, let message = try listener.receive(timeout: .seconds(1)) {
            if message.hasPrefix("STATUS=") { return message }
        }
        return ""
    }

    /// On PostgreSQL with the server down: STATUS= says segued waits for it (and why), READY=1 comes
    /// only once the server is up and the log open.
    @Test func readyOnlyOnceThePostgreSQLStoreIsOpen() throws {
        guard PostgresTestServer.shared != nil else {
            print("⚠︎ SKIPPED: no PostgreSQL server: \(PostgresTestServer.unavailableReason ?? "")")
            return
        }
        let server = try PostgresTestServer.start()
        defer { server.remove() }
        try server.stop()
        let listener = try NotifySocketListener()
        let dir = try TemporaryDirectory()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.segued)
        process.arguments = [
            "--data-dir", dir.path + "/data", "--command", "ipc://\(dir.path)/cmd.sock", "--publish",
            "ipc://\(dir.path)/pub.sock",
            "--store-url", "postgresql:///postgres?host=\(server.directory)&port=\(server.port)&user=segue",
        ]
        var env = ProcessInfo.processInfo.environment
        env["NOTIFY_SOCKET"] = listener.path
        process.environment = env
        process.standardError = Pipe()
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        var waiting: [String] = []
        let until = ContinuousClock.now + .seconds(2)
        while ContinuousClock.now < until, let message = try listener.receive(timeout: .milliseconds(500)) {
            #expect(!message.contains("READY=1"), "ready before the store is open: \(message)")
            waiting.append(message)
        }
        #expect(waiting.contains { $0.hasPrefix("STATUS=Waiting for PostgreSQL at user=segue dbname=postgres") })
        try server.restart()
        let ready = try listener.receive(until: "READY=1")
        #expect(ready.last?.contains("READY=1") == true)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    /// Upgrading a PostgreSQL log across schema version 4, which rewrites its tables: the log and
    /// STATUS= say so, and EXTEND_TIMEOUT_USEC= keeps systemd's start timeout from killing a start
    /// that is busy; READY=1 comes after.
    @Test func aRewritingSchemaMigrationExtendsTheStartTimeout() throws {
        guard let server = PostgresTestServer.shared else {
            print("⚠︎ SKIPPED: no PostgreSQL server: \(PostgresTestServer.unavailableReason ?? "")")
            return
        }
        let schema = try server.makeSchema()
        let dir = try TemporaryDirectory()
        let config = dir.path + "/segued.json"
        let store = try JSONSerialization.data(withJSONObject: ["kind": "postgres", "conninfo": schema.conninfo])
        try Data(
            """
            {"dataDir": "\(dir.path)/data", "command": ["ipc://\(dir.path)/cmd.sock"],
             "publish": ["ipc://\(dir.path)/pub.sock"], "store": \(String(decoding: store, as: UTF8.self))}
            """.utf8
        ).write(to: URL(fileURLWithPath: config))
        func startUntilReady() throws -> (messages: [String], log: String) {
            let listener = try NotifySocketListener()
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Self.segued)
            process.arguments = ["--config", config]
            var env = ProcessInfo.processInfo.environment
            env["NOTIFY_SOCKET"] = listener.path
            process.environment = env
            let stderr = Pipe()
            process.standardError = stderr
            try process.run()
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            let messages = try listener.receive(until: "READY=1", timeout: .seconds(20))
            kill(process.processIdentifier, SIGTERM)
            let log = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            return (messages, log)
        }

        // A log segued created at the current version, taken back to what version 3 left.
        let created = try startUntilReady()
        #expect(!created.messages.contains { $0.contains("EXTEND_TIMEOUT_USEC=") })
        let admin = try server.admin()
        try admin.execute(
            """
            SET search_path = \(schema.name);
            ALTER TABLE events ALTER COLUMN data TYPE json USING data::json;
            ALTER TABLE snapshots ALTER COLUMN state TYPE json USING state::json;
            ALTER TABLE commands ALTER COLUMN reply TYPE json USING reply::json;
            DELETE FROM schema_version WHERE version = 4;
            """)

        let upgraded = try startUntilReady()
        let beforeReady = upgraded.messages.dropLast()
        #expect(beforeReady.contains { $0.contains("EXTEND_TIMEOUT_USEC=20000000") })
        #expect(beforeReady.contains { $0.contains("STATUS=Migrating the log's schema from version 3 to 4") })
        #expect(upgraded.log.contains("Migrated the log's schema from version 3 to 4 in"))
        let types = try admin.query(
            """
            SELECT count(*)::bigint FROM information_schema.columns WHERE table_schema = '\(schema.name)'
            AND column_name IN ('data', 'state', 'reply') AND data_type = 'text'
            """)
        #expect(try types.int64(0, 0) == 3)
    }
}
