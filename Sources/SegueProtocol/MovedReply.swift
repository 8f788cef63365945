import SegueCore

/// `moved` (docs/protocol.md, "Several daemons on one log"): the navigator's shard is led by
/// another daemon on the same log, whose command endpoint the error names.
package struct MovedReply: Equatable, Sendable {
    package var navigator: String
    package var shard: Int
    /// The leader's advertised command endpoint.
    package var leader: String

    package init(navigator: String, shard: Int, leader: String) {
        self.navigator = navigator
        self.shard = shard
        self.leader = leader
    }

    package func json(id: String?) -> JSON {
        .object([
            "ok": false, "id": id.map(JSON.string) ?? .null,
            "error": [
                "code": .string(ErrorCode.moved.rawValue),
                "message": .string(
                    "Navigator \(navigator) is in shard \(shard), led by the daemon at \(leader): send the command "
                        + "there."),
                "leader": .string(leader), "shard": .int(Int64(shard)),
            ],
        ])
    }
}
