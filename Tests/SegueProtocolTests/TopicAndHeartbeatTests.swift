import SegueCore
import SegueProtocol
import Testing

@Suite struct TopicTests {
    static let cases: [(Topic, String)] = [
        (.event(navigator: "main"), "event/main/"),
        (.tick(navigator: "main"), "tick/main/"),
        (.tick(navigator: "a.b-c_9"), "tick/a.b-c_9/"),
        (.heartbeat, "hb/"),
    ]

    @Test(arguments: cases) func spelledAndReadBack(topic: Topic, spelled: String) {
        #expect(topic.string == spelled)
        #expect(topic.bytes == Array(spelled.utf8))
        var buffer: [UInt8] = Array("left over".utf8)
        topic.write(into: &buffer)
        #expect(buffer == Array(spelled.utf8))
        #expect(Topic(spelled) == topic)
        #expect(Topic(bytes: Array(spelled.utf8)) == topic)
    }

    @Test(arguments: ["", "hb", "tick/", "tick//", "event/main", "tock/main/", "probe/x/", "hb/x"])
    func notAPublishedTopic(topic: String) {
        #expect(Topic(topic) == nil)
    }

    @Test func subscriptionPrefixes() {
        #expect(Topic.events() == "event/")
        #expect(Topic.ticks() == "tick/")
        #expect(Topic.events(of: "main") == "event/main/")
        #expect(Topic.ticks(of: "main") == "tick/main/")
    }
}

@Suite struct HeartbeatTests {
    static let body =
        #"{"frame":107762354032,"time":1796095567200000000,"seq":55,"navigators":3,"version":"0.9.0","#
        + #""heartbeatSeconds":1.0,"instance":"9f2c","since":0}"#

    @Test func encodesTheProtocolsBytesAndReadsThemBack() throws {
        let heartbeat = Heartbeat(
            frame: 107_762_354_032, time: 1_796_095_567_200_000_000, seq: 55, navigators: 3, version: "0.9.0",
            heartbeatSeconds: 1, instance: "9f2c", since: 0)
        #expect(heartbeat.json.serialized() == Self.body)
        #expect(try Heartbeat(json: JSON.parse(Array(Self.body.utf8))) == heartbeat)
    }

    @Test func aDaemonThatDoesNotSayItsRunLeavesItNil() throws {
        let old = try Heartbeat(json: JSON.parse(Array(#"{"frame":1,"time":2,"seq":3}"#.utf8)))
        #expect(old.instance == nil && old.since == nil && old.heartbeatSeconds == 1)
        #expect(
            old.json.serialized() == #"{"frame":1,"time":2,"seq":3,"navigators":0,"version":"","heartbeatSeconds":1.0}"#
        )
    }

    @Test(arguments: [#"{}"#, #"{"frame":1,"time":2}"#, #"{"frame":"1","time":2,"seq":3}"#, #"[]"#])
    func refusesABodyWithoutItsPosition(body: String) throws {
        let json = try JSON.parse(Array(body.utf8))
        #expect(throws: WireError.self) { try Heartbeat(json: json) }
    }

    @Test func aPublicationDecodesItsHeartbeat() throws {
        let publication = try Publication(topic: Array("hb/".utf8), body: Array(Self.body.utf8))
        guard case .heartbeat(let heartbeat) = publication else {
            Issue.record("not a heartbeat: \(publication)")
            return
        }
        #expect(heartbeat.seq == 55 && heartbeat.instance == "9f2c")
    }
}
