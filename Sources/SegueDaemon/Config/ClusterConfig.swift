import SegueCore

/// `cluster`: several daemons on one PostgreSQL log (docs/operations.md, "Several daemons on one
/// log"). `{"shards": 16, "advertise": "tcp://10.0.0.5:7400"}`: navigators are split into `shards`
/// by a stable hash of their name, every daemon on the log must give the same count, and each
/// daemon leads the shards it holds the lock of. `advertise` is the command endpoint other daemons
/// name in their `moved` replies; by default the first command endpoint as bound, which must then
/// not be a wildcard address.
package struct ClusterConfig: Sendable, Equatable {
    package var shards: Int
    package var advertise: String?

    static let keys = ["shards", "advertise"]
    static let shardRange = 1...4096

    static func read(_ value: JSON, at path: ConfigPath) throws(ConfigError) -> ClusterConfig {
        var reader = try ConfigReader(value, at: path, known: keys)
        guard let shards = try reader.int("shards", in: shardRange) else {
            throw .config(at: path.key("shards"), "is required: the number of shards, the same on every daemon")
        }
        let advertise = try reader.string("advertise")
        try reader.finish()
        if let advertise, (try? Endpoint(parsing: advertise)) == nil {
            throw .config(at: path.key("advertise"), "must be an endpoint such as \"tcp://10.0.0.5:7400\"")
        }
        return ClusterConfig(shards: shards, advertise: advertise)
    }

    var json: JSON {
        var object: JSONObject = ["shards": .int(Int64(shards))]
        if let advertise { object["advertise"] = .string(advertise) }
        return .object(object)
    }
}
