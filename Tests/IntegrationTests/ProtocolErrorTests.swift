import Foundation
import SegueCore
import Testing

/// Every error code the daemon produces on its own, each from a situation a client meets, on one
/// shared daemon. A rejected command appends nothing: no event a command caused follows it in the log.
///
/// `unavailable` (storage faults), `forbidden` and `unauthorized` (CURVE roles and keys) and
/// `internal` are covered by the fault-injection and security suites.
@Suite(.ownThreads, .serialized, .sharedDaemon) struct ProtocolErrorTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        /// Requests that must succeed first (on a navigator named after the case).
        var setup: [JSON]
        var request: JSON
        var code: ErrorCode
        /// Words the message must contain, so it names what went wrong.
        var mentions: [String] = []
        /// False when the request cannot be read far enough to find its id (then the reply's id is null).
        var echoesID = true
        var testDescription: String { "\(code.rawValue): \(name)" }
    }

    static let slow: JSON = ["duration": 30, "curve": "linear"]

    static func nav(_ n: String) -> JSON { .string(n) }

    static let cases: [Case] = [
        Case(name: "no cmd", setup: [], request: ["navigator": "x"], code: .badRequest, mentions: ["cmd"]),
        Case(
            name: "navigation command without navigator", setup: [], request: ["cmd": "push", "screen": "A"],
            code: .badRequest, mentions: ["navigator"]),
        Case(
            name: "unknown field", setup: [], request: ["cmd": "ping", "colour": "red"], code: .badRequest,
            mentions: ["colour"]),
        Case(
            name: "unknown command", setup: [], request: ["cmd": "teleport"], code: .unknownCommand,
            mentions: ["teleport", "push"]),
        Case(
            name: "navigator name", setup: [], request: ["cmd": "create", "navigator": "no spaces", "root": "A"],
            code: .invalidArgument, mentions: ["no spaces"]),
        Case(
            name: "operation", setup: [], request: ["cmd": "begin", "navigator": "x", "operation": "fly"],
            code: .invalidArgument, mentions: ["fly"]),
        Case(
            name: "duration out of range", setup: [],
            request: ["cmd": "push", "navigator": "x", "screen": "A", "animator": ["duration": 120]],
            code: .invalidArgument, mentions: ["duration"]),
        Case(
            name: "push to a missing navigator", setup: [],
            request: ["cmd": "push", "navigator": "ghost", "screen": "A"], code: .unknownNavigator,
            mentions: ["ghost", "create"]),
        Case(
            name: "state of a missing navigator", setup: [], request: ["cmd": "state", "navigator": "ghost"],
            code: .unknownNavigator, mentions: ["ghost"]),
        Case(
            name: "create twice", setup: [["cmd": "create", "navigator": "twice", "root": "A"]],
            request: ["cmd": "create", "navigator": "twice", "root": "A"], code: .navigatorExists,
            mentions: ["twice"]),
        Case(
            name: "create a closed name",
            setup: [["cmd": "create", "navigator": "reuse", "root": "A"], ["cmd": "close", "navigator": "reuse"]],
            request: ["cmd": "create", "navigator": "reuse", "root": "A"], code: .navigatorExists,
            mentions: ["never reused"]),
        Case(
            name: "push after close",
            setup: [["cmd": "create", "navigator": "shut", "root": "A"], ["cmd": "close", "navigator": "shut"]],
            request: ["cmd": "push", "navigator": "shut", "screen": "B"], code: .navigatorClosed,
            mentions: ["shut", "closed"]),
        Case(
            name: "push during an animation",
            setup: [
                ["cmd": "create", "navigator": "busy1", "root": "A"],
                ["cmd": "push", "navigator": "busy1", "screen": "B", "animator": slow],
            ],
            request: ["cmd": "push", "navigator": "busy1", "screen": "C"], code: .busy,
            mentions: ["busy1", "transition 1", "queue"]),
        Case(
            name: "close during an animation",
            setup: [
                ["cmd": "create", "navigator": "busy2", "root": "A"],
                ["cmd": "push", "navigator": "busy2", "screen": "B", "animator": slow],
            ],
            request: ["cmd": "close", "navigator": "busy2"], code: .busy, mentions: ["busy2"]),
        Case(
            name: "begin during a gesture",
            setup: [
                ["cmd": "create", "navigator": "busy3", "root": "A"],
                ["cmd": "begin", "navigator": "busy3", "operation": "push", "screen": "B"],
            ],
            request: ["cmd": "begin", "navigator": "busy3", "operation": "push", "screen": "C"], code: .busy,
            mentions: ["busy3"]),
        Case(
            name: "update with nothing in flight", setup: [["cmd": "create", "navigator": "idle1", "root": "A"]],
            request: ["cmd": "update", "navigator": "idle1", "percent": 0.5], code: .noTransition,
            mentions: ["idle1", "begin"]),
        Case(
            name: "cancel with nothing in flight", setup: [["cmd": "create", "navigator": "idle2", "root": "A"]],
            request: ["cmd": "cancel", "navigator": "idle2"], code: .noTransition),
        Case(
            name: "interrupt with nothing in flight", setup: [["cmd": "create", "navigator": "idle3", "root": "A"]],
            request: ["cmd": "begin", "navigator": "idle3"], code: .noTransition),
        Case(
            name: "update an animation",
            setup: [
                ["cmd": "create", "navigator": "anim1", "root": "A"],
                ["cmd": "push", "navigator": "anim1", "screen": "B", "animator": slow],
            ],
            request: ["cmd": "update", "navigator": "anim1", "percent": 0.5], code: .notInteractive,
            mentions: ["animating"]),
        Case(
            name: "finish an animation",
            setup: [
                ["cmd": "create", "navigator": "anim2", "root": "A"],
                ["cmd": "push", "navigator": "anim2", "screen": "B", "animator": slow],
            ],
            request: ["cmd": "finish", "navigator": "anim2"], code: .notInteractive),
        Case(
            name: "update by another owner",
            setup: [
                ["cmd": "create", "navigator": "own1", "root": "A"],
                ["cmd": "begin", "navigator": "own1", "operation": "push", "screen": "B", "owner": "left"],
            ],
            request: ["cmd": "update", "navigator": "own1", "percent": 0.5, "owner": "right"], code: .notOwner,
            mentions: ["left"]),
        Case(
            name: "end without the owner",
            setup: [
                ["cmd": "create", "navigator": "own2", "root": "A"],
                ["cmd": "begin", "navigator": "own2", "operation": "push", "screen": "B", "owner": "left"],
            ],
            request: ["cmd": "end", "navigator": "own2"], code: .notOwner),
        Case(
            name: "pop at the root", setup: [["cmd": "create", "navigator": "root1", "root": "A"]],
            request: ["cmd": "pop", "navigator": "root1"], code: .cannotPopRoot, mentions: ["root1", "s1"]),
        Case(
            name: "popToRoot at the root", setup: [["cmd": "create", "navigator": "root2", "root": "A"]],
            request: ["cmd": "popToRoot", "navigator": "root2"], code: .cannotPopRoot),
        Case(
            name: "interactive pop at the root", setup: [["cmd": "create", "navigator": "root3", "root": "A"]],
            request: ["cmd": "begin", "navigator": "root3", "operation": "pop"], code: .cannotPopRoot),
        Case(
            name: "popTo an unknown route",
            setup: [
                ["cmd": "create", "navigator": "find1", "root": "A"],
                ["cmd": "push", "navigator": "find1", "screen": "B", "animated": false],
            ],
            request: ["cmd": "popTo", "navigator": "find1", "screen": "Nope"], code: .screenNotFound,
            mentions: ["Nope"]),
        Case(
            name: "dismiss with nothing presented", setup: [["cmd": "create", "navigator": "find2", "root": "A"]],
            request: ["cmd": "dismiss", "navigator": "find2"], code: .screenNotFound),
        Case(
            name: "setStack with an unknown id", setup: [["cmd": "create", "navigator": "find3", "root": "A"]],
            request: ["cmd": "setStack", "navigator": "find3", "screens": [["id": "s9"]]], code: .screenNotFound,
            mentions: ["s9"]),
        Case(
            name: "stale expect", setup: [["cmd": "create", "navigator": "cas", "root": "A"]],
            request: ["cmd": "push", "navigator": "cas", "screen": "B", "expect": 5], code: .conflict,
            mentions: ["revision 1", "5"]),
        Case(
            name: "create with a nonzero expect", setup: [],
            request: ["cmd": "create", "navigator": "fresh", "root": "A", "expect": 2], code: .conflict,
            mentions: ["revision 0", "2"]),
        Case(
            name: "a 300 kB string", setup: [],
            request: ["cmd": "ping", "pad": .string(String(repeating: "x", count: 300_000))], code: .tooLarge,
            echoesID: false),
        Case(
            name: "params past 16 KiB", setup: [["cmd": "create", "navigator": "big1", "root": "A"]],
            request: [
                "cmd": "push", "navigator": "big1",
                "screen": ["name": "B", "params": ["blob": .string(String(repeating: "y", count: 20_000))]],
            ],
            code: .tooLarge, mentions: ["params"]),
        Case(
            name: "past maxDepth", setup: [["cmd": "create", "navigator": "big2", "root": "A", "maxDepth": 1]],
            request: ["cmd": "push", "navigator": "big2", "screen": "B"], code: .tooLarge, mentions: ["maxDepth"]),
        Case(
            name: "queueLimit past the daemon's limit", setup: [],
            request: ["cmd": "create", "navigator": "big3", "root": "A", "queueLimit": 1000], code: .tooLarge,
            mentions: ["queueLimit"]),
    ]

    @Test(arguments: cases) func rejects(_ c: Case) throws {
        let daemon = try SharedDaemon.get()
        let client = try TestClient(endpoint: daemon.commandEndpoint)
        for request in c.setup { try client.ok(request) }
        let seq = try client.lastSeq()
        var request = c.request.objectValue!
        request["id"] = .string("req-\(c.name.prefix(20))")
        let error = try client.fails(.object(request), c.code)
        let reply = try client.call(.object(request))
        #expect(reply["id"] == (c.echoesID ? request["id"] : .null), "the reply echoes the request id")
        let message = error["message"]?.stringValue ?? ""
        for word in c.mentions { #expect(message.contains(word), "\(message) should mention \(word)") }
        // Transitions that earlier cases started finish on the clock while this suite runs (it takes
        // over a minute on a slow store), so only events that commands caused count here.
        let appended = try client.events(after: seq).filter { $0.command != nil }
        #expect(appended.isEmpty, "a rejected command appends nothing; appended: \(appended)")
    }

    @Test func everyCodeTheDaemonProducesIsInTheTable() {
        // moved: several daemons on one log (FailoverTests).
        let others: Set<ErrorCode> = [.unavailable, .forbidden, .unauthorized, .internal, .moved]
        let covered = Set(Self.cases.map(\.code))
        #expect(covered.union(others) == Set(ErrorCode.allCases))
    }
}
