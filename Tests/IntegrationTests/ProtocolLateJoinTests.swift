import Foundation
import SegueClient
import SegueCore
import Testing

/// A late joiner that arrives during a transition (docs/protocol.md, "Late joiners (the Clone
/// pattern)"): its snapshot covers the `transition.started` that says what the stack will be, so it
/// takes that from the snapshot's `transition.target`, and folds the `transition.completed` that
/// follows onto it. Through `SegueClient`'s own late joiner (`CatchUpSubscription`), against the
/// real daemon; each event's digest and the `state` after completion must agree with the fold.
@Suite(.ownThreads, .sharedDaemon) struct ProtocolLateJoinTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var navigator: String
        /// Non-animated steps to where the case starts, after `create` with root Home.
        var setup: [JSON]
        /// The animated command the joiner arrives during.
        var command: JSON
        var testDescription: String { navigator }
    }

    static func step(_ cmd: String, _ arguments: JSONObject = [:], animated: Bool = false) -> JSON {
        var request: JSONObject = ["cmd": .string(cmd)]
        for (key, value) in arguments.members { request[key] = value }
        if !animated { request["animated"] = false }
        return .object(request)
    }

    /// Long enough for the joiner to subscribe and take its snapshot while the transition runs.
    static let animator: JSON = ["duration": 1.5]

    static let cases: [Case] = [
        Case(
            navigator: "late-setStack", setup: [step("push", ["screen": "A"]), step("push", ["screen": "B"])],
            command: step("setStack", ["screens": ["s1", "X", "Y"], "animator": animator], animated: true)),
        Case(
            navigator: "late-push", setup: [],
            command: step("push", ["screen": "Detail", "animator": animator], animated: true)),
        Case(
            navigator: "late-present", setup: [step("push", ["screen": "A"])],
            command: step("present", ["screen": "Sheet", "animator": animator], animated: true)),
        Case(
            navigator: "late-dismiss", setup: [step("present", ["screen": "Sheet"])],
            command: step("dismiss", ["animator": animator], animated: true)),
        Case(
            navigator: "late-pop", setup: [step("push", ["screen": "A"]), step("push", ["screen": "B"])],
            command: step("pop", ["animator": animator], animated: true)),
    ]

    static func digest(_ navigator: String, _ revision: Int64, _ stack: [Screen], _ modals: [Screen]) -> String {
        SHA256.hash(StateDigest.canonical(navigator: navigator, revision: revision, stack: stack, modals: modals)).hex
    }

    static func screens(_ value: JSON?) throws -> [Screen] {
        try (value?.arrayValue ?? []).map { try Screen(json: $0, path: "screens") }
    }

    @Test(arguments: cases) func aJoinerDuringATransitionFoldsItsCompletionFromTheSnapshot(_ c: Case) throws {
        let daemon = try SharedDaemon.get()
        let client = try SegueClient(endpoint: daemon.commandEndpoint, timeout: .seconds(5))
        let name = c.navigator
        try client.create(name, root: ScreenSpec(name: "Home"))
        let raw = try TestClient(endpoint: daemon.commandEndpoint)
        for step in c.setup { try raw.ok(Self.addressed(step, to: name)) }
        try raw.ok(Self.addressed(c.command, to: name))

        // Joins now: subscribes, then takes `state`, with the transition in flight.
        let view = try CatchUpSubscription(
            client: client, publishEndpoint: daemon.publishEndpoint, navigators: [name], ticks: false)
        guard case .snapshot(let snapshot)? = try view.next(timeout: .seconds(5)) else {
            Issue.record("the first update is not the snapshot")
            return
        }
        let inFlight = try #require(snapshot.transition, "the joiner must arrive during the transition")
        let target = (
            stack: try #require(inFlight.targetStack, "the state reply has no transition.target"),
            modals: try #require(inFlight.targetModals)
        )
        #expect(snapshot.digest == Self.digest(name, snapshot.revision, snapshot.stack, snapshot.modals))

        // The recipe: events above the snapshot; a transition's stack from its `transition.started`,
        // or, for the one in flight at the snapshot, from the snapshot's target.
        var stack = snapshot.stack
        var modals = snapshot.modals
        var revision = snapshot.revision
        var targets: [Int64: (stack: [Screen], modals: [Screen])] = [Int64(inFlight.id): target]
        var completed = false
        while !completed, let update = try view.next(timeout: .seconds(5)) {
            guard case .event(let event) = update else { continue }
            #expect(event.revision == revision + 1, "once each, in order")
            revision = event.revision
            let id = event.data["transition"]?.int64Value ?? 0
            switch event.eventType {
            case .transitionStarted?:
                targets[id] = (try Self.screens(event.data["stack"]), try Self.screens(event.data["modals"]))
            case .transitionCompleted?:
                if let t = targets.removeValue(forKey: id) { (stack, modals) = (t.stack, t.modals) }
                completed = id == Int64(inFlight.id)
            case .transitionCancelled?:
                targets[id] = nil
            default:
                break
            }
            #expect(
                event.digest == Self.digest(name, revision, stack, modals),
                "\(event.type) at revision \(revision): folded \(stack.map(\.id)) \(modals.map(\.id))")
        }
        try #require(completed, "the transition in flight completed")

        let after = try client.state(name)
        #expect(after.revision == revision)
        #expect(after.transition == nil)
        #expect(stack == after.stack, "\(stack.map(\.id)) vs \(after.stack.map(\.id))")
        #expect(modals == after.modals)
        #expect(after.digest == Self.digest(name, revision, stack, modals))
    }

    static func addressed(_ request: JSON, to navigator: String) -> JSON {
        var object = request.objectValue ?? [:]
        object["navigator"] = .string(navigator)
        return .object(object)
    }
}
