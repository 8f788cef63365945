import Foundation
import PostgresTestSupport
import SeguePostgres
import Testing

/// Several daemons on one PostgreSQL log across hosts (network namespaces this test makes): the
/// leader's host cut off (`ip link set … down`) while it leads every shard under clients that
/// follow `moved`. A standby on another host takes the shards; the old leader, back on the
/// network, appends nothing more and steps down; nothing either acknowledged is lost or doubled.
@Suite(.serialized, .timeLimit(.minutes(3)), .choosesItsBackends) struct PartitionTests {
    @Test(.enabled(if: MultiHostFanoutTests.enabled, "needs network namespaces: \(NetworkHosts.unavailable ?? "")"))
    func aLeaderCutOffIsReplacedAndStepsDownWhenItComesBack() throws {
        try #require(NetworkHosts.unavailable == nil, "\(NetworkHosts.unavailable ?? "")")
        _ = try StoreBackend.server()
        let net = try NetworkHosts(hosts: ["pg", "d1", "d2", "clients"])
        defer {
            net.tearDown()
            #expect(net.remainingNamespaces.isEmpty, "every namespace removed")
        }
        let logs = DaemonProcess.temporaryDirectory()
        let (server, url) = try Self.serverOnItsOwnHost(net, logs: logs)
        defer { server.remove() }
        let config = try DaemonProcess.configFile(#"{"cluster": {"shards": 4}}"#)
        func start(_ name: String) throws {
            let address = net[name].address
            _ = try net.start(
                DaemonProcess.binary("segued"),
                [
                    "--data-dir", logs + "/" + name, "--store-url", url, "--command", "tcp://\(address):7400",
                    "--publish", "tcp://\(address):7401",
                ] + config, on: name, log: "\(logs)/\(name).log")
        }
        try start("d1")
        try MultiHostFanoutTests.await("Took shard 3", in: "\(logs)/d1.log")
        try start("d2")
        try MultiHostFanoutTests.await("Ready:", in: "\(logs)/d2.log")
        let endpoints = ["d1", "d2"].map { "tcp://\(net[$0].address):7400" }
        let navigators = (0..<4).flatMap { ShardedCluster.names(inShard: $0, of: 4, count: 2, prefix: "part") }
        let clients = try net["clients"].thread { BusyClients(navigators: navigators, endpoints: endpoints) }.value()
        usleep(1_000_000)

        try net.setLink("d1", up: false)
        let cut = ContinuousClock.now
        for shard in 0..<4 { try MultiHostFanoutTests.await("Took shard \(shard)", in: "\(logs)/d2.log") }
        let takenAfter = ContinuousClock.now - cut
        var served: ContinuousClock.Instant?
        while served == nil, ContinuousClock.now < cut + .seconds(20) {
            usleep(10_000)
            served = clients.firstAck(after: cut, notFrom: endpoints[0])
        }
        #expect(served != nil, "the clients were served by the standby")
        // Within a second here (the server drops the cut-off session after 0.5 s unacknowledged);
        // three is what a loaded test machine must still keep.
        #expect(takenAfter < .seconds(3), "every shard taken \(takenAfter) after the cut")
        usleep(1_000_000)
        try net.setLink("d1", up: true)
        try MultiHostFanoutTests.await("Stepped down for shard(s) 0, 1, 2, 3", in: "\(logs)/d1.log")
        usleep(1_000_000)
        clients.stop()
        let acks = clients.acks
        let problems = try net["clients"].thread {
            try LogCheck.problems(endpoint: endpoints[1], acks: acks)
        }.value()
        let d1 = (try? String(contentsOfFile: "\(logs)/d1.log", encoding: .utf8)) ?? ""
        let d2 = (try? String(contentsOfFile: "\(logs)/d2.log", encoding: .utf8)) ?? ""
        print(
            "partition: standby took every shard \(takenAfter) after the cut, served clients "
                + "\(served.map { "\($0 - cut)" } ?? "never") after; \(acks.count) acknowledged, "
                + "\(clients.errors.count) unacknowledged; the old leader's frame loop:\n"
                + d1.split(separator: "\n").filter { $0.contains("The frame loop") }.joined(separator: "\n"))
        #expect(problems.isEmpty, "\(problems.prefix(10))\n--- d1:\n\(d1)\n--- d2:\n\(d2)")
        #expect(clients.errors.isEmpty, "\(clients.errors.prefix(5))")
        let admin = try server.admin(database: "partition")
        let leaders = try admin.query(
            "SELECT count(*)::bigint FROM shards WHERE epoch >= 2 AND leader = $1",
            {
                var parameters = PostgresParameters()
                parameters.append(endpoints[1])
                return parameters
            }())
        #expect(try leaders.int64(0, 0) == 4, "every shard's epoch bumped by the standby, which leads it")
    }

    /// A private PostgreSQL server, started again on the `pg` host, listening on its address (and
    /// on its socket in the test's directory, for the test's own queries); returns it and the
    /// daemons' URL of a new database `database` on it.
    static func serverOnItsOwnHost(_ net: NetworkHosts, logs: String, database: String = "partition") throws -> (
        PostgresTestServer, String
    ) {
        let server = try PostgresTestServer.start()
        try server.stop()
        let data = server.directory + "/data"
        let address = net["pg"].address
        try Self.append("listen_addresses = '\(address)'\n", to: data + "/postgresql.conf")
        try Self.append("host all all \(NetworkHosts.subnet).0/24 trust\n", to: data + "/pg_hba.conf")
        let owner = ProcessInfo.processInfo.environment["PG_TEST_USER"] ?? "segue-pgtest"
        _ = try net.start(
            "/usr/bin/setpriv",
            [
                "--reuid=\(owner)", "--regid=\(owner)", "--init-groups", "--", "/usr/lib/postgresql/15/bin/postgres",
                "-D", data,
            ], on: "pg", log: logs + "/postgres.log")
        let deadline = ContinuousClock.now + .seconds(20)
        while true {
            if let admin = try? server.admin() {
                try admin.execute("CREATE DATABASE \(database)")
                return (server, "postgresql://segue@\(address):\(server.port)/\(database)")
            }
            guard ContinuousClock.now < deadline else { throw WaitTimeout(what: "PostgreSQL on the pg host") }
            usleep(50_000)
        }
    }

    static func append(_ text: String, to path: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        handle.seekToEndOfFile()
        handle.write(Data(text.utf8))
    }
}
