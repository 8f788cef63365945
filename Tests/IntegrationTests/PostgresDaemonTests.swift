import Foundation
import PostgresTestSupport
import SegueCore
import Testing

/// segued on PostgreSQL when the database fails it (docs/operations.md, "Choosing a store backend"):
/// each test runs a server of its own, since it stops or reconfigures it.
@Suite(.ownThreads, .choosesItsBackends) struct PostgresDaemonTests {
    /// A private server, or a skipped test where postgresql-15 is missing.
    static func privateServer() throws -> PostgresTestServer {
        _ = try StoreBackend.server()
        return try PostgresTestServer.start()
    }

    /// `segued --check-config` connects and says what the next start does to the schema: create it,
    /// nothing, or a migration that rewrites the tables (with their size, to plan the pause by).
    @Test func checkConfigSaysWhatTheNextStartDoesToTheSchema() throws {
        let server = try StoreBackend.server()
        let schema = try server.makeSchema()
        let dir = DaemonProcess.temporaryDirectory()
        let config = try Reliability.writeConfig(
            ["store": ["kind": "postgres", "conninfo": .string(schema.conninfo)]], in: dir)
        func check() throws -> String {
            let result = try Reliability.run(
                DaemonProcess.binary("segued"), ["--check-config", "--config", config, "--data-dir", dir + "/data"])
            #expect(result.status == 0, "\(result.output)")
            return result.output
        }
        #expect(try check().contains(": no Segue schema yet; segued creates version 4 at its first start"))
        let daemon = try DaemonProcess(dataDir: dir, store: .sqlite, arguments: ["--config", config])
        let c = try TestClient(endpoint: daemon.commandEndpoint)
        try c.ok(["cmd": "create", "navigator": "r", "root": "Home"])
        #expect(daemon.stop() == 0)
        #expect(try check().contains(": schema version 4, current"))
        let otherRate = try Reliability.run(
            DaemonProcess.binary("segued"),
            ["--check-config", "--config", config, "--data-dir", dir + "/data", "--frame-rate", "30"])
        #expect(otherRate.status == 78, "a start at another rate is refused, so the check refuses it too")
        #expect(otherRate.output.contains("config error at --frame-rate: the log numbers its frames at 60 Hz"))

        // Back to what version 3 left: the next start rewrites the tables.
        try server.admin().execute(
            """
            SET search_path = \(schema.name);
            ALTER TABLE events ALTER COLUMN data TYPE json USING data::json;
            DELETE FROM schema_version WHERE version = 4;
            """)
        let output = try check()
        #expect(
            output.contains(
                ": schema version 3; segued migrates it to 4 at its next start, rewriting the log's tables ("),
            "\(output)")
        #expect(output.contains(" kB") || output.contains(" MB"), "\(output)")
    }

    /// The server killed (`pg_ctl stop -m immediate`) under a running daemon: commands get
    /// `unavailable` and nothing they asked for is kept; once the server is back, commands succeed
    /// again without a restart of segued, and every acknowledged event is in the log.
    @Test func aServerOutageGetsUnavailableAndServiceResumesByItself() throws {
        let server = try Self.privateServer()
        defer { server.remove() }
        let daemon = try DaemonProcess(arguments: ["--store-url", StoreBackend.url(server, database: "postgres")])
        defer { daemon.stop() }
        let c = try TestClient(endpoint: daemon.commandEndpoint)
        try c.ok(["cmd": "create", "navigator": "r", "root": "Home"])
        try c.ok(["cmd": "push", "navigator": "r", "screen": "A", "animated": false])
        let before = try c.lastSeq()
        let revision = try c.ok(["cmd": "state", "navigator": "r"])["revision"]

        try server.stop(mode: "immediate")
        let refused = try c.fails(["cmd": "push", "navigator": "r", "screen": "B", "animated": false], .unavailable)
        #expect(refused["message"]?.stringValue?.contains("retry when storage recovers") == true)
        try c.fails(["cmd": "push", "navigator": "r", "screen": "B", "animated": false], .unavailable)
        #expect(
            try c.ok(["cmd": "state", "navigator": "r"])["revision"] == revision, "the refused pushes changed nothing")

        try server.restart()
        var resumed: JSON?
        let deadline = ContinuousClock.now + .seconds(15)
        while resumed == nil, ContinuousClock.now < deadline {
            let reply = try c.call(["cmd": "push", "navigator": "r", "screen": "C", "animated": false])
            if reply["ok"] == true { resumed = reply } else { usleep(100_000) }
        }
        #expect(resumed != nil, "segued did not resume after the server came back:\n\(daemon.log)")
        let events = try c.events(of: "r")
        let resumedSeq = try #require(resumed?["seq"]?.int64Value)
        #expect(events.map(\.seq) == Array(1...resumedSeq), "gapless")
        #expect(!events.contains { $0.data["to"]?["name"] == "B" }, "the refused pushes are not in the log")
        #expect(TestClient.routes(try c.ok(["cmd": "state", "navigator": "r"])) == ["Home", "A", "C"])
        // The recovery is said once commits have gone on succeeding for a second.
        let recoveryDeadline = ContinuousClock.now + .seconds(5)
        while !daemon.log.contains("Commits succeed again"), ContinuousClock.now < recoveryDeadline {
            usleep(100_000)
        }
        let log = daemon.log
        #expect(log.contains("Commit failed after seq \(before): unavailable"), "\(log)")
        #expect(log.contains("Commits succeed again"), "\(log)")
        // The server's goodbye to its sessions is a line of segued's log at its level, not libpq's
        // bare line on stderr: every line keeps its journald priority.
        #expect(
            log.contains(
                "<4>segued: PostgreSQL at user=segue dbname=postgres host=\(server.directory) port=\(server.port) "
                    + "says: terminating connection due to immediate shutdown command"), "\(log)")
        let bare = log.split(separator: "\n").filter { !$0.starts(with: "<") }
        #expect(bare.isEmpty, "lines without a priority: \(bare)")
    }

    /// Started while the server is down: segued waits, says so, answers nothing, and serves once the
    /// server is up; the log names the server without anything secret.
    @Test func aDaemonStartedBeforeItsServerWaitsForIt() throws {
        let server = try Self.privateServer()
        defer { server.remove() }
        try server.stop()
        let url = StoreBackend.url(server, database: "postgres") + "&application_name=segued-wait"
        let daemon = try DaemonProcess(arguments: ["--store-url", url], waitReady: false)
        defer { daemon.stop() }
        let deadline = ContinuousClock.now + .seconds(10)
        while !daemon.log.contains("Waiting for PostgreSQL at"), ContinuousClock.now < deadline { usleep(50_000) }
        #expect(daemon.log.contains("Waiting for PostgreSQL at user=segue dbname=postgres host=\(server.directory)"))
        let early = try TestClient(endpoint: daemon.commandEndpoint)
        #expect(throws: (any Error).self, "no answer before the store is open") {
            try early.call(["cmd": "ping"], timeout: .milliseconds(300))
        }
        try server.restart()
        try daemon.waitUntilReady()
        let c = try TestClient(endpoint: daemon.commandEndpoint)
        try c.ok(["cmd": "create", "navigator": "r", "root": "Home"])
        #expect(daemon.log.contains("Opened the log in PostgreSQL at"))
    }

    /// SIGTERM while segued waits for its server ends the wait at once, not when the pause before the
    /// next attempt (up to 5 s, systemd's TimeoutStopSec=) is over.
    @Test func aStopEndsTheWaitForTheServerAtOnce() throws {
        _ = try StoreBackend.server()
        let nowhere = DaemonProcess.temporaryDirectory()
        let daemon = try DaemonProcess(
            arguments: ["--store-url", "postgresql:///segue?host=\(nowhere)"], waitReady: false)
        defer { daemon.stop() }
        // The fifth attempt's pause: 250 ms doubled four times.
        let announced = "trying again in 4.0 seconds"
        let deadline = ContinuousClock.now + .seconds(30)
        while !daemon.log.contains(announced), ContinuousClock.now < deadline { usleep(20_000) }
        try #require(daemon.log.contains(announced), "\(daemon.log)")
        let stopping = ContinuousClock.now
        #expect(daemon.stop() == 0)
        let took = ContinuousClock.now - stopping
        #expect(took < .seconds(2), "the stop waited out the pause: \(took)")
        #expect(daemon.log.contains("Stopped before the log was open."))
    }

    /// A database whose sessions are read-only (as a standby's are): refused at start with the reason,
    /// not retried, exit status 1.
    @Test func aReadOnlyDatabaseIsRefusedAtStart() throws {
        let url = try StoreBackend.newDatabase()
        let name = String(url.dropFirst("postgresql:///".count).prefix { $0 != "?" })
        try StoreBackend.server().admin().execute("ALTER DATABASE \(name) SET default_transaction_read_only = on")
        let daemon = try DaemonProcess(arguments: ["--store-url", url], waitReady: false)
        let deadline = ContinuousClock.now + .seconds(10)
        while daemon.process.isRunning, ContinuousClock.now < deadline { usleep(20_000) }
        #expect(daemon.stop() == 1)
        #expect(daemon.log.contains("Could not open the log in PostgreSQL at"), "\(daemon.log)")
        #expect(daemon.log.contains("read-only"), "\(daemon.log)")
    }
}
