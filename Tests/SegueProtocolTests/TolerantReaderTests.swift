import SegueCore
import SegueProtocol
import Testing

/// A client reads what the daemon sends as a tolerant reader (docs/protocol.md, "Requests and
/// replies"): a member it does not know, at the top or nested, is skipped, so an older client keeps
/// working against a newer daemon. Import, which stores what it reads, refuses them instead
/// (`JSONLinesTests`, `CliCommandTests`).
@Suite struct TolerantReaderTests {
    static let event =
        #"{"seq":12,"navigator":"main","revision":5,"type":"transition.completed","version":1,"frame":900,"#
        + #""time":1796039233866000000,"command":null,"data":{"transition":2},"digest":"8bd9"}"#

    /// Each row: what the newer daemon sent, in place of `event`.
    static let events: [(String, String)] = [
        (
            "a member after the known ones",
            event.replacingOccurrences(of: #""digest":"8bd9"}"#, with: #""digest":"8bd9","shard":"a"}"#)
        ),
        (
            "a member among them",
            event.replacingOccurrences(of: #""version":1,"#, with: #""version":1,"lease":{"n":1},"#)
        ),
        (
            "a member nested in data",
            event.replacingOccurrences(
                of: #""data":{"transition":2}"#, with: #""data":{"transition":2,"why":{"a":[1]}}"#)
        ),
        (
            "an event type this build does not know",
            event.replacingOccurrences(of: "transition.completed", with: "transition.teleported")
        ),
    ]

    @Test(arguments: events) func aPublishedEventDecodes(_ what: String, body: String) throws {
        let publication = try Publication(topic: Array("event/main/".utf8), body: Array(body.utf8))
        guard case .event(let event) = publication else {
            Issue.record("\(what): not an event: \(publication)")
            return
        }
        #expect(event.seq == 12 && event.navigator == "main" && event.revision == 5, "\(what)")
        #expect(event.data["transition"] == 2 && event.digest == "8bd9", "\(what)")
    }

    @Test(arguments: events) func aHistoryPageDecodes(_ what: String, body: String) throws {
        let reply = try JSON.parse(Array(#"{"ok":true,"id":null,"events":[\#(body)],"next":12,"more":false}"#.utf8))
        let page = try HistoryPage(try #require(reply.objectValue))
        #expect(page.events.map(\.seq) == [12], "\(what)")
        #expect(page.events.first?.data["transition"] == 2, "\(what)")
    }

    @Test func anEventOfATypeThisBuildDoesNotKnowIsAnEventWithoutAType() throws {
        let body = Self.event.replacingOccurrences(of: "transition.completed", with: "transition.teleported")
        guard case .event(let event) = try Publication(topic: Array("event/main/".utf8), body: Array(body.utf8)) else {
            Issue.record("not an event")
            return
        }
        #expect(event.type == "transition.teleported" && event.eventType == nil)
    }

    static let state =
        #"{"ok":true,"id":null,"navigator":"main","revision":2,"seq":2,"frame":27,"status":"open","#
        + #""stack":[{"id":"s1","name":"Home"}],"modals":[],"transition":{"id":1,"operation":"push","#
        + #""phase":"animating","fraction":0.5,"progress":0.5,"from":{"id":"s1","name":"Home"},"#
        + #""to":{"id":"s2","name":"Detail"},"interactive":false,"owner":null},"queued":0,"digest":"f190"}"#

    /// Each row: what the newer daemon sent, in place of `state`.
    static let states: [(String, String)] = [
        ("a member at the top", state.replacingOccurrences(of: #""queued":0,"#, with: #""queued":0,"lease":7,"#)),
        (
            "a member in the transition",
            state.replacingOccurrences(of: #""owner":null}"#, with: #""owner":null,"rate":{"x":1}}"#)
        ),
        (
            "a member in a screen",
            state.replacingOccurrences(
                of: #"{"id":"s1","name":"Home"}],"#, with: #"{"id":"s1","name":"Home","title":"H"}],"#)
        ),
    ]

    @Test(arguments: states) func aStateReplyDecodes(_ what: String, body: String) throws {
        let reply = try #require(try JSON.parse(Array(body.utf8)).objectValue)
        let snapshot = try NavigatorSnapshot(reply)
        #expect(snapshot.stack == [Screen(id: "s1", name: "Home")], "\(what)")
        #expect(snapshot.transition?.to == Screen(id: "s2", name: "Detail"), "\(what)")
        #expect(snapshot.digest == "f190", "\(what)")
    }

    @Test func aHeartbeatTickAndCommandReplyWithMembersThisBuildDoesNotKnowDecode() throws {
        let heartbeat =
            #"{"frame":1,"time":2,"seq":3,"navigators":1,"version":"9","heartbeatSeconds":1.0,"load":{"a":1}}"#
        guard case .heartbeat(let hb) = try Publication(topic: Array("hb/".utf8), body: Array(heartbeat.utf8)) else {
            Issue.record("not a heartbeat")
            return
        }
        #expect(hb.seq == 3)
        let tick =
            #"{"navigator":"main","transition":1,"operation":"push","frame":5,"phase":"animating","fraction":0.5,"#
            + #""progress":0.5,"revision":2,"final":false,"views":{},"blur":{"r":2}}"#
        guard case .tick(let t) = try Publication(topic: Array("tick/main/".utf8), body: Array(tick.utf8)) else {
            Issue.record("not a tick")
            return
        }
        #expect(t.fraction == 0.5)
        let reply = #"{"ok":true,"id":"a","navigator":"main","revision":2,"seq":2,"frame":5,"took":{"ms":1}}"#
        #expect(try CommandReply(try #require(try JSON.parse(Array(reply.utf8)).objectValue)).seq == 2)
    }
}
