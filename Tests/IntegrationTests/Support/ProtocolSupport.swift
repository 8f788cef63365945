import Foundation
import SegueCore
import SegueWire
import Testing

/// Assertions and waits shared by the protocol tests (daemon, pub/sub, restart, malformed input).
///
/// Replies are checked whole where it matters and by code where only the code is the contract, so a
/// failure prints the reply the daemon actually sent.
extension TestClient {
    /// Frames the daemon has skipped after stalls of its loop, without ticks (`stats.missedFrames`).
    func missedFrames() throws -> Int64 { try call(["cmd": "stats"])["missedFrames"]?.int64Value ?? 0 }

    /// Sends `request`, expects `ok: true` and returns the reply.
    @discardableResult
    func ok(_ request: JSON, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSON {
        let reply = try call(request)
        #expect(reply["ok"] == true, "\(request.serialized()) -> \(reply.serialized())", sourceLocation: sourceLocation)
        return reply
    }

    /// Sends `request`, expects `ok: false` with `code`, and returns the reply's `error` object.
    @discardableResult
    func fails(_ request: JSON, _ code: ErrorCode, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSON {
        let reply = try call(request)
        #expect(
            reply["ok"] == false, "\(request.serialized()) -> \(reply.serialized())", sourceLocation: sourceLocation)
        #expect(
            reply["error"]?["code"] == .string(code.rawValue), "\(request.serialized()) -> \(reply.serialized())",
            sourceLocation: sourceLocation)
        let message = reply["error"]?["message"]?.stringValue ?? ""
        #expect(!message.isEmpty, "an error reply must say what to do", sourceLocation: sourceLocation)
        return reply["error"] ?? .null
    }

    /// The log's last seq, from `ping`.
    func lastSeq() throws -> Int64 {
        try #require(try call(["cmd": "ping"])["seq"]?.int64Value)
    }

    /// Polls `state` until the navigator has no transition in flight (and nothing queued).
    @discardableResult
    func waitIdle(_ navigator: String, timeout: Duration = .seconds(10)) throws -> JSON {
        let deadline = ContinuousClock.now + timeout
        while true {
            let state = try call(["cmd": "state", "navigator": .string(navigator)])
            if state["transition"] == .null, state["queued"] == 0 { return state }
            guard ContinuousClock.now < deadline else { throw WaitTimeout(what: "\(navigator) to go idle: \(state)") }
            usleep(10_000)
        }
    }

    /// The log's events after `seq`, of `navigator` or of every navigator, through `history` pages.
    func events(of navigator: String? = nil, after seq: Int64 = 0) throws -> [EventRecord] {
        var out: [EventRecord] = []
        var after = seq
        while true {
            var request: JSONObject = ["cmd": "history", "after": .int(after), "limit": 500]
            if let navigator { request["navigator"] = .string(navigator) }
            let page = try call(.object(request))
            for event in page["events"]?.arrayValue ?? [] { out.append(try EventRecord(json: event)) }
            after = try #require(page["next"]?.int64Value)
            if page["more"] != true { return out }
        }
    }

    /// The route names of a reply's `stack`, root first.
    static func routes(_ reply: JSON) -> [String] {
        (reply["stack"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
    }
}

struct WaitTimeout: Error, CustomStringConvertible {
    var what: String
    var description: String { "timed out waiting for \(what)" }
}

extension TestSubscriber {
    /// ZeroMQ's "slow joiner": a SUB's subscriptions reach the PUB asynchronously and messages published
    /// before they arrive are lost. This subscribes a unique probe topic after the real ones and waits
    /// until the daemon's `stats` counts one more subscription: the XPUB reads one pipe in order, so by
    /// then the real topics are in place. (XPUB forwards only a topic's first subscription, hence the
    /// unique probe.)
    func settle(_ client: TestClient) throws {
        let before = try client.call(["cmd": "stats"])["subscriptions"]?.int64Value ?? 0
        try socket.subscribe("probe/\(UUID().uuidString)/")
        let deadline = ContinuousClock.now + .seconds(5)
        while try client.call(["cmd": "stats"])["subscriptions"]?.int64Value ?? 0 <= before {
            guard ContinuousClock.now < deadline else { throw WaitTimeout(what: "the subscription to arrive") }
            usleep(2_000)
        }
    }

    /// Collects until `until` holds for a message, failing when the deadline passes first.
    func collect(
        timeout: Duration = .seconds(10), until: @escaping (String, JSON) -> Bool
    ) throws -> [(topic: String, body: JSON, raw: [UInt8])] {
        var seen = false
        let out = try collect(idle: timeout, max: timeout) { topic, body in
            seen = until(topic, body)
            return seen
        }
        guard seen else { throw WaitTimeout(what: "a matching message; got \(out.count) messages") }
        return out
    }
}

/// A navigator state rebuilt by a client from published events, the way a late joiner does it.
enum ClientFold {
    /// The state a `state` reply describes, for a navigator with nothing in flight: enough for `evolve`
    /// to apply later navigation events (stack, modals, revision, screen and transition counters).
    static func state(fromReply reply: JSON, clock: FrameClock) throws -> NavigatorState {
        var state = NavigatorState(name: try #require(reply["navigator"]?.stringValue), clock: clock)
        state.status = reply["status"] == "open" ? .open : .closed
        state.revision = try #require(reply["revision"]?.int64Value)
        state.frame = try #require(reply["frame"]?.int64Value)
        state.stack = try (reply["stack"]?.arrayValue ?? []).map { try Screen(json: $0, path: "stack") }
        state.modals = try (reply["modals"]?.arrayValue ?? []).map { try Screen(json: $0, path: "modals") }
        let numbers = (state.stack + state.modals).map { Int($0.id.dropFirst()) ?? 0 }
        state.nextScreenNumber = (numbers.max() ?? 0) + 1
        return state
    }

    /// Applies a published event body.
    static func apply(_ body: JSON, to state: NavigatorState) throws -> NavigatorState {
        Navigator.evolve(state, try NavigationEvent(record: EventRecord(json: body)))
    }
}

/// One daemon for a whole suite whose tests only read or use their own navigators: saves a start
/// per case in the long tables (malformed input, error codes). Stopped when the suite ends.
struct SharedDaemonTrait: SuiteTrait, TestScoping {
    var isRecursive: Bool { false }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        try await SharedDaemon.$current.withValue(daemon) { try await function() }
    }
}

enum SharedDaemon {
    @TaskLocal static var current: DaemonProcess?

    static func get() throws -> DaemonProcess { try #require(current, "the suite needs the .sharedDaemon trait") }
}

extension Trait where Self == SharedDaemonTrait {
    static var sharedDaemon: Self { SharedDaemonTrait() }
}
