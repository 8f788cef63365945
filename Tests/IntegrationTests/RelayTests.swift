import Foundation
import SegueClient
import SegueCore
import SegueProtocol
import Testing

/// `segue relay` between real daemons and real subscribers: two tiers forward every message byte for
/// byte, subscriptions flow upstream (the counters show it), heartbeats let a client below a relay
/// that merges two daemons find gaps and restores of its own daemon, and CURVE holds at each hop.
@Suite(.serialized, .timeLimit(.minutes(3))) struct RelayTests {
    typealias Message = (topic: String, body: JSON, raw: [UInt8])

    /// Pushes every navigator (created first) with a 0.3 s animator.
    static func animate(_ client: TestClient, _ names: [String]) throws {
        for name in names { try client.ok(["cmd": "create", "navigator": .string(name), "root": "Home"]) }
        for name in names {
            try client.ok(["cmd": "push", "navigator": .string(name), "screen": "A", "animator": ["duration": 0.3]])
        }
    }

    /// Receives until each of `names` has had its `transition.completed` (a starved daemon may skip the
    /// frame of a final tick, never an event), then what follows within 300 ms.
    static func untilCompleted(_ subscriber: TestSubscriber, _ names: [String]) throws -> [Message] {
        var waiting = Set(names)
        let messages = try subscriber.collect { topic, body in
            if topic.hasPrefix("event/"), body["type"] == "transition.completed",
                let name = body["navigator"]?.stringValue
            {
                waiting.remove(name)
            }
            return waiting.isEmpty
        }
        return messages + (try subscriber.collect(idle: .milliseconds(300)))
    }

    /// The raw bodies of the messages whose topic is one of `names`' event or tick topics, in order.
    static func stream(_ messages: [Message], of names: [String]) -> [String: [[UInt8]]] {
        var out: [String: [[UInt8]]] = [:]
        for name in names {
            out[name] = messages.filter { $0.topic == "tick/\(name)/" || $0.topic == "event/\(name)/" }.map(\.raw)
        }
        return out
    }

    @Test func twoTiersForwardEveryMessageByteIdentical() throws {
        let a = try DaemonProcess()
        let b = try DaemonProcess()
        defer {
            a.stop()
            b.stop()
        }
        let ca = try TestClient(endpoint: a.commandEndpoint)
        let cb = try TestClient(endpoint: b.commandEndpoint)
        // The contract's spelling, `--from A B`.
        let top = try RelayProcess(from: [a.publishEndpoint, b.publishEndpoint], oneFrom: true)
        let bottom = try RelayProcess(from: [top.publishEndpoint])
        defer {
            bottom.stop()
            top.stop()
        }
        let topics = ["tick/", "event/", "hb/"]
        let directA = try TestSubscriber(endpoint: a.publishEndpoint, topics: topics)
        try directA.settle(ca)
        let directB = try TestSubscriber(endpoint: b.publishEndpoint, topics: topics)
        try directB.settle(cb)
        let below = try TestSubscriber(endpoint: bottom.publishEndpoint, topics: topics)
        try below.settle(ca)
        try below.settle(cb)

        let namesA = (0..<4).map { "a\($0)" }
        let namesB = (0..<4).map { "b\($0)" }
        try Self.animate(ca, namesA)
        try Self.animate(cb, namesB)
        let gotBelow = try Self.untilCompleted(below, namesA + namesB)
        let gotA = try Self.untilCompleted(directA, namesA)
        let gotB = try Self.untilCompleted(directB, namesB)
        // Two heartbeats of each daemon, then everything still queued: below first, so that whatever
        // reached it has reached the direct subscribers too.
        usleep(2_200_000)
        let restBelow = try below.collect(idle: .milliseconds(300))
        let restA = try directA.collect(idle: .milliseconds(300))
        let restB = try directB.collect(idle: .milliseconds(300))

        let all = gotBelow + restBelow
        for (names, direct) in [(namesA, gotA + restA), (namesB, gotB + restB)] {
            let expected = Self.stream(direct, of: names)
            let forwarded = Self.stream(all, of: names)
            for name in names {
                #expect((expected[name]?.count ?? 0) >= 4, "\(name): its events and ticks")
                #expect(forwarded[name] == expected[name], "\(name)'s ticks and events through two relays")
            }
        }
        let instanceA = try #require(try ca.call(["cmd": "ping"])["instance"]?.stringValue)
        let instanceB = try #require(try cb.call(["cmd": "ping"])["instance"]?.stringValue)
        let beats = all.filter { $0.topic == "hb/" }
        let directBeats = Set((gotA + restA + gotB + restB).filter { $0.topic == "hb/" }.map(\.raw))
        for instance in [instanceA, instanceB] {
            #expect(beats.filter { $0.body["instance"] == .string(instance) }.count >= 2, "heartbeats of \(instance)")
        }
        #expect(beats.allSatisfy { directBeats.contains($0.raw) }, "every heartbeat byte-identical")
    }

    @Test func subscriptionsFlowUpstreamAndTheCountersShowIt() throws {
        let a = try DaemonProcess()
        defer { a.stop() }
        let ca = try TestClient(endpoint: a.commandEndpoint)
        let relay = try RelayProcess(from: [a.publishEndpoint], arguments: ["--stats-interval", "0.2"])
        let below = try TestSubscriber(endpoint: relay.publishEndpoint, topics: ["tick/x/"])
        try below.settle(ca)
        try Self.animate(ca, ["x", "y"])
        try ca.waitIdle("x")
        try ca.waitIdle("y")
        let received = try below.collect(idle: .milliseconds(500))
        #expect(received.allSatisfy { $0.topic == "tick/x/" }, "only what was subscribed to")
        #expect(received.last?.body["final"] == true, "x's ticks, up to its final one")
        let count = received.count

        let stats = try Cli.run(["relay", "--stats", "--control", relay.controlEndpoint, "--json"])
        #expect(stats.status == 0, "\(stats.stderr)")
        let counters = try JSON.parse(Array(stats.stdout.utf8))["statistics"]
        // y's ticks never left the daemon: the relay received exactly what it forwarded below.
        #expect(counters?["frontend"]?["messagesIn"] == .int(Int64(received.count)))
        #expect(counters?["backend"]?["messagesOut"] == .int(Int64(received.count)))
        #expect((counters?["backend"]?["messagesIn"]?.int64Value ?? 0) >= 2, "tick/x/ and the probe")
        #expect((counters?["frontend"]?["messagesOut"]?.int64Value ?? 0) >= 2, "sent upstream")
        let human = try Cli.run(["relay", "--stats", "--control", relay.controlEndpoint])
        #expect(human.stdout.contains("\(count) publications received, \(count) forwarded"), "\(human.stdout)")

        #expect(relay.stop() == 0)
        #expect(relay.log.contains("segue relay: Statistics: "), "\(relay.log)")
        #expect(
            relay.log.contains("segue relay: Stopping: \(count) publications received, \(count) forwarded"),
            "\(relay.log)")
        // Its ipc socket is gone: said at once, not after the timeout.
        let gone = try Cli.run(["relay", "--stats", "--control", relay.controlEndpoint, "--timeout", "30"])
        #expect(gone.status == 69)
        #expect(
            gone.stderr.contains("No relay listens at \(relay.controlEndpoint): there is no socket"), "\(gone.stderr)")
        // A tcp endpoint cannot tell: the timeout.
        let silent = "tcp://127.0.0.1:\(DaemonProcess.freePort())"
        let waited = try Cli.run(["relay", "--stats", "--control", silent, "--timeout", "0.5"])
        #expect(waited.status == 3)
        #expect(waited.stderr.contains("No relay answered at \(silent) within 0.5 s;"), "\(waited.stderr)")
    }

    @Test(arguments: [
        (["relay", "--publish", "tcp://127.0.0.1:1"], "Missing expected option '--from <endpoint>'."),
        (["relay", "--from", "tcp://127.0.0.1:1"], "Missing expected option '--publish <endpoint>'."),
        (["relay", "--stats"], "--stats needs --control <endpoint>: the control endpoint of the relay to ask."),
        (
            ["relay", "--from", "tcp://127.0.0.1:1", "--publish", "tcp://127.0.0.1:2", "--allow", "x.pub"],
            "--allow needs --publish-key <name>: without it --publish does not use CURVE."
        ),
        (
            ["relay", "--from", "tcp://127.0.0.1:1", "--publish", "tcp://127.0.0.1:2", "--publish-key", "k"],
            "--publish-key needs at least one --allow <key|file>: the public keys of the subscribers to admit."
        ),
        (["relay", "--from", "tcp://127.0.0.1:1", "--endpoint", "tcp://127.0.0.1:3"], "Unknown option '--endpoint'"),
        // Endpoints after --from, or in a list, are checked as --from's own.
        (
            ["relay", "--from", "tcp://127.0.0.1:1", "foo", "--publish", "tcp://127.0.0.1:2"],
            "The value 'foo' is invalid for '--from': expected a ZeroMQ endpoint like tcp://127.0.0.1:7401"
        ),
        (
            ["relay", "--from", "tcp://127.0.0.1:1,foo", "--publish", "tcp://127.0.0.1:2"],
            "The value 'foo' is invalid for '--from': expected a ZeroMQ endpoint like tcp://127.0.0.1:7401"
        ),
        (
            ["relay", "--from", "tcp://127.0.0.1:1", "--publish", "tcp://127.0.0.1:2", "--stats-interval", "abc"],
            "The value 'abc' is invalid for '--stats-interval': expected a positive duration like 60, 60s or 500ms, "
                + "or 0 for none"
        ),
        (
            ["relay", "--from", "tcp://127.0.0.1:1", "--publish", "tcp://127.0.0.1:2", "--stats-interval", "-1"],
            "The value '-1' is invalid for '--stats-interval'"
        ),
        (["relay", "--from", "", "--publish", "tcp://127.0.0.1:2"], "The value '' is invalid for '--from'"),
        (["relay", "--from", ",", "--publish", "tcp://127.0.0.1:2"], "The value '' is invalid for '--from'"),
        (
            ["relay", "--from", "tcp://127.0.0.1:1,,tcp://127.0.0.1:3", "--publish", "tcp://127.0.0.1:2"],
            "The value '' is invalid for '--from'"
        ),
        // Only the words right after --from are its list: an endpoint elsewhere is no upstream.
        (
            ["relay", "tcp://127.0.0.1:1", "--from", "tcp://127.0.0.1:3", "--publish", "tcp://127.0.0.1:2"],
            "Unexpected argument 'tcp://127.0.0.1:1'."
        ),
        (
            ["relay", "--from", "tcp://127.0.0.1:1", "--publish", "tcp://127.0.0.1:2", "tcp://127.0.0.1:3"],
            "Unexpected argument 'tcp://127.0.0.1:3'."
        ),
        // A --publish that is no endpoint is a usage error as a --from is, not the bind's failure (69).
        (
            ["relay", "--from", "tcp://127.0.0.1:1", "--publish", "foo"],
            "The value 'foo' is invalid for '--publish': expected a ZeroMQ endpoint to bind like tcp://127.0.0.1:7401 (no transport://)."
        ),
        (
            ["relay", "--from", "tcp://127.0.0.1:1", "--publish", "tcp://*:70000"],
            "invalid for '--publish': expected a ZeroMQ endpoint to bind like tcp://127.0.0.1:7401 (the port must be a number up to 65535, or *)."
        ),
        (
            ["replay", "/nonexistent.jsonl", "--publish", "tcp://127.0.0.1"],
            "invalid for '--publish': expected a ZeroMQ endpoint to bind like tcp://127.0.0.1:7401 (tcp needs host:port)."
        ),
    ])
    func usageErrors(arguments: [String], message: String) throws {
        let result = try Cli.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test func anEndpointThatCannotBeBoundIsStatus69() throws {
        let a = try DaemonProcess()
        defer { a.stop() }
        // The daemon's own publish endpoint is taken.
        let result = try Cli.run(["relay", "--from", a.publishEndpoint, "--publish", a.publishEndpoint])
        #expect(result.status == 69)
        #expect(result.stderr.contains("Cannot publish on \(a.publishEndpoint): Address already in use"))
    }

    /// libzmq's ipc bind replaces a socket file another process listens on: a second relay given a
    /// running one's `--publish` or `--control` path would cut that one's subscribers or `--stats` off
    /// for good. It is refused instead, and the first relay keeps answering.
    @Test(arguments: ["publish", "control"])
    func anIpcEndpointARunningRelayListensOnIsRefused(taken option: String) throws {
        let a = try DaemonProcess()
        defer { a.stop() }
        let directory = DaemonProcess.temporaryDirectory()
        let running = try RelayProcess(from: [a.publishEndpoint], publish: "ipc://\(directory)/relay.pub")
        defer { running.stop() }
        let taken = option == "publish" ? running.publishEndpoint : running.controlEndpoint
        let fresh =
            option == "publish"
            ? ["--publish", taken, "--control", "ipc://\(directory)/other.ctl"]
            : ["--publish", "ipc://\(directory)/other.pub", "--control", taken]
        let second = try CliBackground(["relay", "--from", a.publishEndpoint] + fresh)
        second.finish(timeout: .seconds(3))
        #expect(second.process.terminationReason == .exit && second.process.terminationStatus == 69)
        #expect(
            second.stderr.contains("Cannot bind \(taken): another process (another relay?) listens on it"),
            "\(second.stderr)")
        let stats = try Cli.run(["relay", "--stats", "--control", running.controlEndpoint, "--timeout", "2"])
        #expect(stats.status == 0, "the running relay still answers: \(stats.stderr)")
    }

    /// A relay stopped by SIGTERM removes the socket files of its ipc `--publish` and `--control`.
    @Test func aStoppedRelayRemovesItsIPCSocketFiles() throws {
        let a = try DaemonProcess()
        defer { a.stop() }
        let directory = DaemonProcess.temporaryDirectory()
        let relay = try RelayProcess(from: [a.publishEndpoint], publish: "ipc://\(directory)/relay.pub")
        let files = [relay.publishEndpoint, relay.controlEndpoint].map { String($0.dropFirst("ipc://".count)) }
        #expect(files.allSatisfy { FileManager.default.fileExists(atPath: $0) })
        #expect(relay.stop() == 0, "\(relay.log)")
        for file in files { #expect(!FileManager.default.fileExists(atPath: file), "left behind: \(file)") }
    }

    /// libzmq retries a failed handshake in silence, forever: a relay with keys its daemon refuses
    /// would forward nothing and say nothing. It logs why, naming the option to fix.
    @Test(arguments: [
        (
            ["--server-key", "server.pub", "--client-key", "stranger"],
            "refused this relay's CURVE key (ZAP status 400)"
        ),
        (
            ["--server-key", "stranger.pub", "--client-key", "relay"],
            "hung up on the CURVE handshake: --server-key is not its public key"
        ),
        ([], "hung up on a handshake without keys: it requires CURVE; pass --server-key and --client-key"),
    ])
    func aFailedHandshakeUpstreamIsLogged(keys arguments: [String], message: String) throws {
        let dir = DaemonProcess.temporaryDirectory()
        let keys = try CurveFixture.keys(["server", "relay", "stranger"], in: dir)
        let daemon = try CurveFixture.daemon(in: dir, keys: keys, clients: [("relay", "observer")])
        defer { daemon.stop() }
        let relay = try RelayProcess(
            from: [daemon.publishEndpoint], arguments: arguments.map { $0.hasPrefix("--") ? $0 : keys + "/" + $0 })
        defer { relay.stop() }
        #expect(
            relay.process.wait(for: "segue relay: \(daemon.publishEndpoint) \(message)", onStderr: true),
            "\(relay.log)")
        #expect(relay.log.components(separatedBy: "hung up").count <= 2, "logged once, not at every retry")
    }

    /// segued's command endpoint given as --from hangs up on the XSUB's handshake like a CURVE daemon:
    /// the relay asks it what it is and says so, once.
    @Test func aCommandEndpointGivenAsUpstreamIsNamed() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let relay = try RelayProcess(from: [daemon.commandEndpoint])
        defer { relay.stop() }
        let line =
            "segue relay: \(daemon.commandEndpoint) is a ZeroMQ ROUTER socket, not a publisher (give --from a "
            + "segued's --publish endpoint, or a relay's --publish); nothing is forwarded from it until this is fixed"
        #expect(relay.process.wait(for: line, onStderr: true), "\(relay.log)")
        #expect(!relay.log.contains("CURVE"), "\(relay.log)")
        #expect(relay.log.components(separatedBy: "ROUTER").count == 2, "logged once, not at every retry")
    }
}
