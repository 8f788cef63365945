import Foundation
import SegueCore
import Testing

/// State digests through the real daemon, checked by a client in another language:
/// docs/examples/digest_follower.py folds the published events alone (Python's json and hashlib,
/// nothing of Segue's) and recomputes the digest of every event, every final tick and every
/// heartbeat it can compare. A navigator made before the follower starts, with a transition still
/// in flight, must be folded too: the fleet digest covers it. A second frontend in the same run has
/// its fold damaged right after one event, and must see the mismatch at the very next one.
@Suite(.ownThreads) struct ProtocolDigestTests {
    static let follower = ProtocolExampleTests.root.appendingPathComponent("docs/examples/digest_follower.py")

    struct Summary {
        var checked: [String: Int]
        var mismatches: [JSON]
    }

    static func summary(_ json: JSON?, _ key: String) throws -> Summary {
        let side = try #require(json?[key]?.objectValue, "no \(key) in the follower's summary")
        var checked: [String: Int] = [:]
        for (name, count) in try #require(side["checked"]?.objectValue).members {
            checked[name] = Int(count.int64Value ?? -1)
        }
        return Summary(checked: checked, mismatches: side["mismatches"]?.arrayValue ?? [])
    }

    @Test func aPythonFrontendRecomputesEveryDigestAndADamagedOneFailsAtTheNextEvent() throws {
        let probe = try ProtocolExampleTests.python(["-c", "import zmq"])
        try #require(
            probe.status == 0, "python3 cannot import zmq; install it with `pip install pyzmq`.\n\(probe.output)")
        let daemon = try DaemonProcess.configured(#"{"heartbeatSeconds": 0.1}"#)
        defer { daemon.stop() }
        // Before the follower starts: a navigator with a pushed screen and a present in flight for
        // the whole run (seqs 1 to 4). The follower joins late and must fold it too.
        let client = try TestClient(endpoint: daemon.commandEndpoint)
        let early: [JSON] = [
            ["cmd": "create", "navigator": "early", "root": "Home"],
            ["cmd": "push", "navigator": "early", "screen": "Detail", "animated": false],
            ["cmd": "present", "navigator": "early", "screen": "Sheet", "animator": ["duration": 60]],
        ]
        for request in early {
            let reply = try client.call(request)
            try #require(reply["ok"] == true, "\(reply)")
        }
        let before: Int64 = 4
        // Seq 10 of the session is the interactive pop's start; 11 its first update, which moves
        // only the revision.
        let corruptAfter: Int64 = before + 10
        let run = try ProtocolExampleTests.python([
            Self.follower.path, "--command", daemon.commandEndpoint, "--publish", daemon.publishEndpoint,
            "--drive", "main", "--corrupt-after", String(corruptAfter), "--seconds", "1",
        ])
        let context = "follower output:\n\(run.output)\nsegued log:\n\(daemon.log.suffix(2000))"
        #expect(run.status == 0, "\(context)")
        let line = try #require(run.output.split(separator: "\n").last, "\(context)")
        let summary = try JSON.parse(Array(line.utf8))

        // Every event of the log was checked, and agreed.
        let seq = try #require(try client.call(["cmd": "ping"])["seq"]?.int64Value)
        let honest = try Self.summary(summary, "honest")
        #expect(honest.mismatches.isEmpty, "\(context)")
        #expect(honest.checked["events"] == Int(seq), "\(context)")
        #expect(seq == before + 27, "the early navigator's events and the session's")
        #expect(honest.checked["finalTicks"] == 9, "one per transition: \(context)")
        #expect((honest.checked["heartbeats"] ?? 0) >= 1, "a heartbeat at the last seq: \(context)")

        // The damaged frontend agreed up to the damage and disagreed from the next event on (a
        // heartbeat that came between the damage and that event may disagree at the damage's seq).
        let damaged = try Self.summary(summary, "damaged")
        let beforeDamage = damaged.mismatches.filter { ($0["seq"]?.int64Value ?? .max) < corruptAfter }
        #expect(beforeDamage.isEmpty, "\(context)")
        let first = try #require(damaged.mismatches.first { $0["what"] == "events" }, "\(context)")
        #expect(first["seq"]?.int64Value == corruptAfter + 1, "\(context)")
        #expect(first["type"] == "interaction.updated")
    }
}
