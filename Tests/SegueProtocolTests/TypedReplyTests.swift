import SegueCore
import SegueProtocol
import Testing

/// Each typed reply has one encoder (the daemon's) and one decoder (the client's): what one writes the
/// other reads back, and the bytes are the protocol's, member for member.
@Suite struct TypedReplyTests {
    static let clock = try! FrameClock(rate: 60)
    static let home = Screen(id: "s1", name: "Home")

    /// A navigator `main` created at frame 10, with a push started at frame 12 (0.5 s, not finished).
    static func pushing() throws -> NavigatorState {
        var state = Navigator.initialState(name: "main", clock: clock)
        for (command, frame) in [
            (NavigationCommand.create(root: ScreenSpec(name: "Home"), config: NavigatorConfig()), Int64(10)),
            (.push(ScreenSpec(name: "Detail"), TransitionOptions(animator: ["duration": 0.5])), 12),
        ] {
            for event in try Navigator.decide(command, state: state, frame: frame) {
                state = Navigator.evolve(state, event)
            }
        }
        return state
    }

    @Test func pongBytesAndRoundTrip() throws {
        let pong = Pong(
            version: "1.2.3", frameRate: 60, frame: 77, seq: 5, heartbeatSeconds: 1, instance: "ab", since: 3)
        let bytes = pong.json(id: nil).serialized()
        #expect(
            bytes
                == #"{"ok":true,"id":null,"version":"1.2.3","frameRate":60,"frame":77,"seq":5,"heartbeatSeconds":1.0,"instance":"ab","since":3}"#
        )
        #expect(try Pong(try #require(JSON.parse(Array(bytes.utf8)).objectValue)) == pong)
        #expect(pong.heartbeatInterval == .seconds(1))
    }

    @Test func stateOfATransitionInFlight() throws {
        let state = try Self.pushing()
        let fields = NavigatorSnapshot.encode(state, seq: 2, frame: 27)
        let reply = Reply.ok(id: "r", fields)
        let read = try NavigatorSnapshot(try #require(reply.objectValue))
        #expect(read.navigator == "main" && read.revision == 2 && read.seq == 2 && read.frame == 27)
        #expect(read.stack == [Self.home])
        let t = try #require(read.transition)
        #expect(t.id == 1 && t.operation == "push" && t.phase == "animating" && !t.interactive)
        #expect(t.fraction == 0.5, "15 of 30 frames")
        #expect(t.to.name == "Detail")
        #expect(t.targetStack == [Self.home, Screen(id: "s2", name: "Detail")] && t.targetModals == [])
        #expect(
            reply.serialized().hasPrefix(
                #"{"ok":true,"id":"r","navigator":"main","revision":2,"seq":2,"frame":27,"status":"open","stack":[{"id":"s1","name":"Home"}],"modals":[],"transition":{"id":1,"operation":"push","phase":"animating","fraction":0.5,"#
            ))
        #expect(
            reply.serialized().hasSuffix(
                #""interactive":false,"owner":null,"target":{"stack":[{"id":"s1","name":"Home"},{"id":"s2","name":"Detail"}],"modals":[]}},"queued":0,"digest":"f190d748960fddd8313e9737166f1ddb18428d2af84b90d17f8df50529edf860"}"#
            ))
        #expect(
            read.digest == "f190d748960fddd8313e9737166f1ddb18428d2af84b90d17f8df50529edf860", "main, 2, [s1 Home], []")
    }

    @Test func listRowsAndRoundTrip() throws {
        let state = try Self.pushing()
        let reply = NavigatorSummary.encodeList(id: nil, [state], seq: 2)
        #expect(
            reply.serialized()
                == #"{"ok":true,"id":null,"navigators":[{"navigator":"main","status":"open","revision":2,"depth":1,"modals":0,"top":{"id":"s1","name":"Home"},"transition":{"id":1,"operation":"push","phase":"animating"}}],"seq":2}"#
        )
        let row = try NavigatorSummary(try #require(reply["navigators"]?.arrayValue?.first?.objectValue))
        #expect(row.navigator == "main" && row.depth == 1 && row.top == Self.home && row.transition?["id"] == 1)
    }

    @Test func historyPageRoundTrip() throws {
        let record = EventRecord(
            seq: 1, navigator: "main", revision: 1, type: "navigator.closed", frame: 3, time: 4, command: nil, data: [:]
        )
        let page = HistoryPage(events: [record], next: 1, more: false, instance: "ab")
        let reply = page.json(id: nil)
        #expect(reply.serialized().hasSuffix(#"],"next":1,"more":false,"instance":"ab"}"#))
        #expect(try HistoryPage(try #require(reply.objectValue)) == page)
    }

    /// Members follow the events: a cancel whose queued successor started at once says `decision`
    /// before `transition`, as the events happened.
    @Test(arguments: [
        (
            [
                NavigationEvent.Kind.cancelling(
                    transition: 1, fraction: 0, completionSpeed: 1, completionCurve: .easeInOut, reason: .requested),
                .queued(request: .pop(TransitionOptions()), position: 1, transition: 2),
            ],
            #","decision":"cancel","queued":1}"#
        ),
        (
            [
                .updated(transition: 2, percent: 0.5, velocity: 0),
                .finishing(
                    transition: 2, fraction: 0.5, velocity: nil, completionSpeed: 1, completionCurve: .easeInOut),
            ],
            #","percent":0.5,"decision":"finish"}"#
        ),
        ([.interrupted(transition: 3, fraction: 0.25, owner: nil)], #","transition":3,"fraction":0.25}"#),
    ])
    func commandReplyMembersFollowTheEvents(kinds: [NavigationEvent.Kind], tail: String) throws {
        let events = kinds.map { NavigationEvent(frame: 9, command: nil, kind: $0) }
        let fields = CommandReply.encode(
            id: nil, navigator: "main", revision: 4, seq: 7, frame: 9, events: events, inFlight: nil)
        let bytes = JSON.object(fields).serialized()
        #expect(bytes.hasPrefix(#"{"ok":true,"id":null,"navigator":"main","revision":4,"seq":7,"frame":9"#))
        #expect(bytes.hasSuffix(tail), "\(bytes)")
        let read = try CommandReply(fields)
        #expect(read.revision == 4 && read.seq == 7 && read.frame == 9)
    }

    @Test(arguments: [
        ["ok": true] as JSONObject, ["revision": 1], ["seq": 1],
    ])
    func aCommandReplyWithoutItsPositionIsMalformed(reply: JSONObject) {
        #expect(throws: WireError(.badRequest, "a command reply without revision and seq")) {
            try CommandReply(reply)
        }
    }
}
