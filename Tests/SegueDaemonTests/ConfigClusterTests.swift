import Foundation
import SegueCore
import Testing

@testable import SegueDaemon

/// `cluster`: several daemons on one PostgreSQL log (docs/operations.md, "Several daemons on one log").
@Suite struct ConfigClusterTests {
    @Test func clusterIsReadAndWrittenBack() throws {
        let read = try config(#"{"cluster": {"shards": 16, "advertise": "tcp://10.0.0.5:7400"}}"#)
        #expect(read.cluster == ClusterConfig(shards: 16, advertise: "tcp://10.0.0.5:7400"))
        #expect(try DaemonConfig(json: read.json).cluster == read.cluster)
        #expect(try config("{}").cluster == nil, "one daemon on its log by default")
    }

    @Test(arguments: [
        (#"{"cluster": {}}"#, "$.cluster.shards"),
        (#"{"cluster": {"shards": 0}}"#, "$.cluster.shards"),
        (#"{"cluster": {"shards": 5000}}"#, "$.cluster.shards"),
        (#"{"cluster": {"shards": 4, "advertise": "10.0.0.5:7400"}}"#, "$.cluster.advertise"),
        (#"{"cluster": {"shards": 4, "leader": true}}"#, "$.cluster.leader"),
    ])
    func badClusterValuesNameTheirPath(document: String, path: String) {
        #expect(configError(document)?.location == path)
    }

    /// Sharing needs a log several daemons can reach: with SQLite, start-up stops with exit 78.
    @Test func clusterNeedsPostgreSQL() throws {
        let sqlite = try config(#"{"cluster": {"shards": 4}}"#)
        #expect(throws: Daemon.LateConfigError.self) { try Daemon.options(from: sqlite) }
        var postgres = sqlite
        postgres.store = .postgres(conninfo: "host=/run/postgresql dbname=segue")
        #expect(try Daemon.options(from: postgres).shards == ShardMap(count: 4))
    }

    /// `moved` replies name the advertised endpoint, by default the first command endpoint as bound:
    /// one on every interface (`0.0.0.0`) would send clients on other hosts nowhere, so then
    /// `advertise` is required (exit 78); an address, or an `advertise`, passes.
    @Test(arguments: [
        ("tcp://*:7400", nil, true), ("tcp://0.0.0.0:7400", nil, true), ("tcp://[::]:7400", nil, true),
        ("tcp://*:7400", "tcp://10.0.0.5:7400", false), ("tcp://127.0.0.1:7400", nil, false),
        ("ipc:///run/segue/command.sock", nil, false),
    ])
    func aWildcardCommandEndpointNeedsAnAdvertisedOne(command: String, advertise: String?, refused: Bool) throws {
        var config = try config(#"{"cluster": {"shards": 4}}"#)
        config.store = .postgres(conninfo: "host=/run/postgresql dbname=segue")
        config.command = [try Endpoint(parsing: command)]
        config.cluster?.advertise = advertise
        do {
            _ = try Daemon.options(from: config)
            #expect(!refused)
        } catch {
            #expect(refused, "\(error)")
            #expect("\(error)".hasPrefix("config error at $.cluster.advertise: is required when the first command "))
        }
    }
}

/// The stable hash that places navigators in shards: the same on every host and build (FNV-1a),
/// so the values are fixed here.
@Suite struct ShardMapTests {
    @Test(arguments: [
        ("", 0xcbf2_9ce4_8422_2325 as UInt64), ("a", 0xaf63_dc4c_8601_ec8c), ("main", 0x1f59_62a2_ce98_03c8),
    ])
    func theHashIsFNV1a(name: String, hash: UInt64) {
        #expect(ShardMap.fnv1a(name) == hash)
    }

    @Test func everyNameHasAShardInRange() {
        let map = ShardMap(count: 7)
        let shards = (0..<1000).map { map.shard(of: "n\($0)") }
        #expect(shards.allSatisfy { (0..<7).contains($0) })
        #expect(Set(shards).count == 7, "a thousand names reach every shard")
    }
}
