import Foundation
import SegueClient
import SegueCore
import SegueProtocol
import Testing

/// A late joiner below a relay that merges two daemons: the snapshot from its daemon, the stream from
/// the relay. The other daemon's heartbeats (another log, another seq) pass too and must not confuse
/// it; its own daemon's heartbeats reveal what a dead relay lost, and a restore of its daemon.
@Suite(.serialized, .timeLimit(.minutes(3))) struct RelayCatchUpTests {
    /// Updates until `done` holds for the list, or `timeout` passes.
    static func updates(
        _ subscription: CatchUpSubscription, timeout: Duration = .seconds(10),
        until done: ([CatchUpSubscription.Update]) -> Bool
    ) throws -> [CatchUpSubscription.Update] {
        var out: [CatchUpSubscription.Update] = []
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, !done(out) {
            if let update = try subscription.next(timeout: .milliseconds(200)) { out.append(update) }
        }
        return out
    }

    static func revisions(_ updates: [CatchUpSubscription.Update]) -> [Int64] {
        updates.compactMap { if case .event(let e) = $0 { e.revision } else { nil } }
    }

    static func push(_ client: SegueClient, _ count: Int) throws {
        for _ in 0..<count {
            _ = try client.push("main", ScreenSpec(name: "A"), options: TransitionOptions(animated: false))
        }
    }

    /// Its restore is a copy of SQLite's files (`copyOfLog`).
    @Test(.sqliteOnly) func aLateJoinerBelowARelayFindsGapsAndRestoresOfItsOwnDaemon() throws {
        let a = try DaemonProcess.configured(#"{"heartbeatSeconds": 0.2}"#)
        let b = try DaemonProcess.configured(#"{"heartbeatSeconds": 0.2}"#)
        var current = a
        defer {
            current.stop()
            b.stop()
        }
        // The other daemon's log runs far ahead of this one's: its heartbeats' seqs must not count.
        let other = try SegueClient(endpoint: b.commandEndpoint)
        for index in 0..<30 { try other.create("other\(index)", root: ScreenSpec(name: "Home")) }
        let writer = try SegueClient(endpoint: a.commandEndpoint)
        try writer.create("main", root: ScreenSpec(name: "Home"))
        let publish = "tcp://127.0.0.1:\(DaemonProcess.freePort())"
        var relay = try RelayProcess(from: [a.publishEndpoint, b.publishEndpoint], publish: publish)
        defer { relay.stop() }

        let subscription = try CatchUpSubscription(
            client: SegueClient(endpoint: a.commandEndpoint, timeout: .seconds(2)), publishEndpoint: publish,
            navigators: ["main"], ticks: false, heartbeats: true)
        var seen = try Self.updates(subscription) { updates in
            updates.contains { if case .heartbeat(let hb) = $0 { hb.instance != nil } else { false } }
        }
        guard case .snapshot(let snapshot)? = seen.first else {
            Issue.record("the snapshot first: \(seen)")
            return
        }
        #expect(snapshot.revision == 1)
        try Self.push(writer, 2)
        seen = try Self.updates(subscription) { Self.revisions($0).last == 5 }
        #expect(Self.revisions(seen) == [2, 3, 4, 5])

        // The relay dies; events published meanwhile are lost on the way, then read back once a
        // heartbeat of this daemon through the new relay shows the log moved.
        relay.kill()
        try Self.push(writer, 2)
        relay = try RelayProcess(from: [a.publishEndpoint, b.publishEndpoint], publish: publish)
        seen = try Self.updates(subscription) { Self.revisions($0).last == 9 }
        #expect(Self.revisions(seen) == [6, 7, 8, 9], "the gap filled from history, in order, once")

        // A restart goes on; a restore to an older copy of the log is found and starts over.
        #expect(a.stop() == 0)
        let backup = try a.copyOfLog()
        current = try a.restarted()
        try Self.push(SegueClient(endpoint: current.commandEndpoint), 1)
        seen = try Self.updates(subscription) { Self.revisions($0).last == 11 }
        #expect(Self.revisions(seen) == [10, 11])
        #expect(!seen.contains { if case .rewound = $0 { true } else { false } }, "a restart is no restore")

        #expect(current.stop() == 0)
        try current.restoreLog(from: backup)
        current = try current.restarted()
        seen = try Self.updates(subscription) { updates in
            updates.contains { if case .snapshot = $0 { true } else { false } }
        }
        let rewound = seen.compactMap { if case .rewound(let seq) = $0 { seq } else { nil } }
        #expect(rewound.count == 1, "the restore is found: \(seen)")
        let restored = seen.compactMap { if case .snapshot(let s) = $0 { s } else { nil } }.last
        #expect(restored?.revision == 9, "the restored log's state")
    }

    @Test func curveHoldsAtEachHop() throws {
        let dir = DaemonProcess.temporaryDirectory()
        let keys = try CurveFixture.keys(["server", "ops", "relay1", "relay2", "viewer", "stranger"], in: dir)
        let daemon = try CurveFixture.daemon(
            in: dir, keys: keys, clients: [("ops", "controller"), ("relay1", "observer")])
        defer { daemon.stop() }
        func credentials(server: String, client: String) throws -> CurveCredentials {
            let server = try String(contentsOfFile: "\(keys)/\(server).pub", encoding: .utf8)
            return try CurveCredentials.keyPair(
                named: "\(keys)/\(client)", serverPublicKey: server.trimmingCharacters(in: .whitespacesAndNewlines)
            ).credentials
        }
        let ops = try SegueClient(endpoint: daemon.commandEndpoint, curve: credentials(server: "server", client: "ops"))
        let deadline = ContinuousClock.now + .seconds(20)
        while (try? ops.ping()) == nil { try #require(ContinuousClock.now < deadline, "\(daemon.log)") }

        let relay1 = try RelayProcess(
            from: [daemon.publishEndpoint],
            arguments: [
                "--server-key", keys + "/server.pub", "--client-key", keys + "/relay1", "--publish-key",
                keys + "/relay1", "--allow", keys + "/relay2.pub",
            ])
        let relay2 = try RelayProcess(
            from: [relay1.publishEndpoint],
            arguments: [
                "--server-key", keys + "/relay1.pub", "--client-key", keys + "/relay2", "--publish-key",
                keys + "/relay2", "--allow", keys + "/viewer.pub",
            ])
        defer {
            relay2.stop()
            relay1.stop()
        }
        let viewer = try SegueSubscriber(
            endpoint: relay2.publishEndpoint, topics: ["tick/", "event/", "hb/"],
            curve: credentials(server: "relay2", client: "viewer"))
        // Subscriptions are in place once a heartbeat came through both hops.
        var first: Publication?
        while first == nil || !({ if case .heartbeat = first! { true } else { false } })() {
            let publication = try #require(try viewer.next(timeout: .seconds(5)), "a heartbeat through two CURVE hops")
            first = publication
        }
        try ops.create("main", root: ScreenSpec(name: "Home"))
        _ = try ops.push("main", ScreenSpec(name: "A"), options: TransitionOptions(animator: ["duration": 0.2]))
        var (ticks, events) = (0, [String]())
        while let publication = try viewer.next(timeout: .seconds(5)) {
            if case .tick = publication { ticks += 1 }
            if case .event(let event) = publication { events.append(event.type) }
            if events.last == "transition.completed" { break }
        }
        #expect(events == ["navigator.created", "transition.started", "transition.completed"])
        #expect(ticks > 0, "ticks through two CURVE hops")

        // Refused by the relay, the subscriber is pointed at the relay's list too, not only the daemon's.
        let refused = #expect(throws: SegueClientError.self, "a key relay2 was not given") {
            try SegueSubscriber(
                endpoint: relay2.publishEndpoint, topics: ["tick/"],
                curve: credentials(server: "relay2", client: "stranger"))
        }
        #expect(refused?.message.contains("(a relay's: its --allow)") == true, "\(String(describing: refused))")
        #expect(relay2.process.wait(for: "segue relay: Refused a subscriber: CURVE key", onStderr: true))
        #expect(throws: SegueClientError.self, "no keys at all") {
            try SegueSubscriber(endpoint: relay2.publishEndpoint, topics: ["tick/"])
        }
    }
}
