import SegueCore
import Testing

@testable import SegueClient

/// Several daemons on one log: the endpoint list a client takes, and the `moved` replies it follows.
@Suite struct EndpointListTests {
    @Test(arguments: [
        ("tcp://a:7400", ["tcp://a:7400"]),
        ("tcp://a:7400,tcp://b:7400", ["tcp://a:7400", "tcp://b:7400"]),
        (" tcp://a:7400 , tcp://b:7400 ,", ["tcp://a:7400", "tcp://b:7400"]),
        ("ipc:///run/segue/command.sock", ["ipc:///run/segue/command.sock"]),
    ])
    func aCommaSeparatedListIsSplit(list: String, endpoints: [String]) {
        #expect(SegueClient.split(list) == endpoints)
    }

    @Test(
        arguments: [
            (
                #"{"ok": false, "error": {"code": "moved", "message": "…", "leader": "tcp://b:7400", "shard": 3}}"#,
                "tcp://b:7400"
            ),
            (#"{"ok": false, "error": {"code": "unavailable", "message": "…"}}"#, nil),
            (#"{"ok": true, "leader": "tcp://b:7400"}"#, nil),
            (#"{"ok": false, "error": {"code": "moved", "message": "…"}}"#, nil),
        ] as [(String, String?)])
    func onlyAMovedReplyNamesALeader(reply: String, leader: String?) throws {
        let object = try #require(try JSON.parse(Array(reply.utf8)).objectValue)
        #expect(SegueClient.movedLeader(object) == leader)
    }
}
