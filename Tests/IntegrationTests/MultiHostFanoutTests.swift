import Foundation
import SegueClient
import SegueCore
import SegueWire
import Testing

/// Fan-out across hosts (network namespaces this test makes): three daemons on three hosts, a relay
/// merging them on a fourth, a second tier on a fifth, and 200 subscribers on a sixth receive every
/// tick and event of 50 navigators at 60 Hz byte for byte as a subscriber on each daemon's own host.
@Suite(.serialized, .timeLimit(.minutes(4)), .choosesItsBackends) struct MultiHostFanoutTests {
    static let enabled = NetworkHosts.unavailable == nil || NetworkHosts.isCI

    @Test(.enabled(if: enabled, "needs network namespaces: \(NetworkHosts.unavailable ?? "")"))
    func twoRelayTiersAcrossHostsDeliverEveryMessageByteIdentical() throws {
        try #require(NetworkHosts.unavailable == nil, "\(NetworkHosts.unavailable ?? "")")
        let net = try NetworkHosts(hosts: ["d1", "d2", "d3", "relay1", "relay2", "clients"])
        defer {
            net.tearDown()
            #expect(net.remainingNamespaces.isEmpty, "every namespace removed")
        }
        let daemons = ["d1", "d2", "d3"]
        let logs = DaemonProcess.temporaryDirectory()
        let config = try DaemonProcess.configFile(#"{"heartbeatSeconds": 0.2}"#)
        for name in daemons {
            let address = net[name].address
            _ = try net.start(
                DaemonProcess.binary("segued"),
                [
                    "--data-dir", logs + "/" + name, "--command", "tcp://\(address):7400", "--publish",
                    "tcp://\(address):7401",
                ] + config, on: name, log: "\(logs)/\(name).log")
        }
        for name in daemons { try Self.await("Ready:", in: "\(logs)/\(name).log") }
        _ = try net.start(
            Cli.binary,
            ["relay", "--publish", "tcp://\(net["relay1"].address):7501", "--stats-interval", "0"]
                + daemons.flatMap { ["--from", "tcp://\(net[$0].address):7401"] },
            on: "relay1", log: "\(logs)/relay1.log")
        _ = try net.start(
            Cli.binary,
            [
                "relay", "--from", "tcp://\(net["relay1"].address):7501", "--publish",
                "tcp://\(net["relay2"].address):7501", "--stats-interval", "0",
            ], on: "relay2", log: "\(logs)/relay2.log")
        for relay in ["relay1", "relay2"] { try Self.await("segue relay: Forwarding", in: "\(logs)/\(relay).log") }

        let names = (0..<50).map { "n\($0)" }
        let owner = { (index: Int) in daemons[index % daemons.count] }
        let ready = DispatchSemaphore(value: 0)
        var collectors: [(scope: [String], thread: HostThread<[[String: StreamDigests.Digest]]>)] = []
        for daemon in daemons {
            let own = names.indices.filter { owner($0) == daemon }.map { names[$0] }
            let endpoint = "tcp://\(net[daemon].address):7401"
            collectors.append(
                (
                    own,
                    net[daemon].thread {
                        try StreamDigests.collect(
                            endpoint: endpoint, subscribers: 1, instances: 1, navigators: Set(own), ready: ready)
                    }
                ))
        }
        let below = "tcp://\(net["relay2"].address):7501"
        for _ in 0..<4 {
            collectors.append(
                (
                    names,
                    net["clients"].thread {
                        try StreamDigests.collect(
                            endpoint: below, subscribers: 50, instances: 3, navigators: Set(names), ready: ready)
                    }
                ))
        }
        for _ in collectors {
            #expect(ready.wait(timeout: .now() + 30) == .success, "every subscriber heard every daemon")
        }
        let pushed = net["clients"].thread { () throws -> [String] in
            let clients = try daemons.map { try TestClient(endpoint: "tcp://\(net[$0].address):7400") }
            var refused: [String] = []
            for request: JSON in names.map({ ["cmd": "create", "navigator": .string($0), "root": "Home"] })
                + names.map({ ["cmd": "push", "navigator": .string($0), "screen": "A", "animator": ["duration": 0.5]] })
            {
                let index = names.firstIndex(of: request["navigator"]?.stringValue ?? "") ?? 0
                let reply = try clients[index % 3].call(request, timeout: .seconds(20))
                if reply["ok"] != true { refused.append(reply.serialized()) }
            }
            return refused
        }
        #expect(try pushed.value().isEmpty, "every create and push acknowledged")

        var reference: [String: StreamDigests.Digest] = [:]
        for collector in collectors.prefix(3) {
            for (name, digest) in try collector.thread.value()[0] where collector.scope.contains(name) {
                reference[name] = digest
            }
        }
        #expect(reference.count == 50)
        // Three events and ticks (a daemon starved of CPU may skip frames, and their ticks).
        #expect(reference.values.allSatisfy { $0.count >= 4 }, "each create's and push's events and ticks")
        var subscribers = 0
        for collector in collectors.dropFirst(3) {
            for streams in try collector.thread.value() {
                subscribers += 1
                let differing = names.filter { streams[$0] != reference[$0] }
                #expect(differing.isEmpty, "subscriber \(subscribers) differs on \(differing.prefix(5))")
            }
        }
        #expect(subscribers == 200)
    }

    /// A daemon's host cut off (`ip link set … down`) while it appends, then back: a client below a
    /// relay on another host gets every event once, in order, by TCP's retransmission or, failing
    /// that, from `history` at the daemon's next heartbeat.
    @Test(.enabled(if: enabled, "needs network namespaces: \(NetworkHosts.unavailable ?? "")"))
    func aHostCutOffAndBackLosesNothingBelowTheRelay() throws {
        try #require(NetworkHosts.unavailable == nil, "\(NetworkHosts.unavailable ?? "")")
        let net = try NetworkHosts(hosts: ["d1", "relay1", "clients"])
        defer { net.tearDown() }
        let logs = DaemonProcess.temporaryDirectory()
        let daemon = net["d1"].address
        _ = try net.start(
            DaemonProcess.binary("segued"),
            ["--data-dir", logs + "/d1", "--command", "tcp://\(daemon):7400", "--publish", "tcp://\(daemon):7401"]
                + (try DaemonProcess.configFile(#"{"heartbeatSeconds": 0.2}"#)), on: "d1", log: logs + "/d1.log")
        try Self.await("Ready:", in: logs + "/d1.log")
        let relay = "tcp://\(net["relay1"].address):7501"
        _ = try net.start(
            Cli.binary, ["relay", "--from", "tcp://\(daemon):7401", "--publish", relay], on: "relay1",
            log: logs + "/relay1.log")
        try Self.await("segue relay: Forwarding", in: logs + "/relay1.log")
        let push = { (count: Int) in
            try net["d1"].thread {
                let client = try TestClient(endpoint: "tcp://\(daemon):7400")
                for _ in 0..<count {
                    _ = try client.ok(["cmd": "push", "navigator": "main", "screen": "A", "animated": false])
                }
            }.value()
        }
        try net["d1"].thread {
            _ = try TestClient(endpoint: "tcp://\(daemon):7400").ok([
                "cmd": "create", "navigator": "main", "root": "Home",
            ])
        }.value()
        let started = DispatchSemaphore(value: 0)
        let follower = net["clients"].thread { () throws -> [Int64] in
            defer { started.signal() }
            let subscription = try CatchUpSubscription(
                client: SegueClient(endpoint: "tcp://\(daemon):7400", timeout: .seconds(1)), publishEndpoint: relay,
                navigators: ["main"], ticks: false)
            started.signal()
            var revisions: [Int64] = []
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline, revisions.last != 7 {
                switch try subscription.next(timeout: .milliseconds(200)) {
                case .snapshot(let snapshot)?: revisions.append(snapshot.revision)
                case .event(let event)?: revisions.append(event.revision)
                default: break
                }
            }
            return revisions
        }
        #expect(started.wait(timeout: .now() + 10) == .success, "the follower took its snapshot")
        try push(2)
        try net.setLink("d1", up: false)
        try push(2)
        let reachable = try net["clients"].thread { () throws -> Bool in
            let probe = try TestClient(endpoint: "tcp://\(daemon):7400")
            return (try? probe.call(["cmd": "ping"], timeout: .seconds(2))) != nil
        }.value()
        #expect(!reachable, "the daemon's host is cut off")
        try net.setLink("d1", up: true)
        try push(2)
        #expect(try follower.value() == [1, 2, 3, 4, 5, 6, 7], "every event once, in order")
    }

    /// Waits until `path` holds `text` (a daemon's `Ready:` line, a relay's `Forwarding`).
    static func await(_ text: String, in path: String, timeout: Duration = .seconds(30)) throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let log = try? String(contentsOfFile: path, encoding: .utf8), log.contains(text) { return }
            usleep(20_000)
        }
        let log = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        throw WaitTimeout(what: "'\(text)' in \(path):\n\(log)")
    }
}

/// Subscribers to `tick/`, `event/` and `hb/` of one endpoint, read by one thread: per subscriber
/// and navigator, how many messages arrived and a hash of their bytes in arrival order.
enum StreamDigests {
    struct Digest: Equatable, Sendable {
        var count: Int
        var hash: Int
    }

    /// Signals `ready` once every subscriber heard heartbeats of `instances` daemons, then collects
    /// until every subscriber had the `transition.completed` of each of `navigators` (and 300 ms more),
    /// or 60 s.
    static func collect(
        endpoint: String, subscribers: Int, instances: Int, navigators: Set<String>, ready: DispatchSemaphore
    ) throws -> [[String: Digest]] {
        let context = try ZMQContext()
        var poller = ZMQPoller()
        let sockets = try (0..<subscribers).map { _ in
            let socket = try ZMQSocket(context, .sub)
            try socket.setReceiveHighWaterMark(0)
            for topic in ["tick/", "event/", "hb/"] { try socket.subscribe(topic) }
            try socket.connect(endpoint)
            poller.add(socket)
            return socket
        }
        defer {
            for socket in sockets { socket.close() }
            context.terminate()
        }
        var heard = [Set<String>](repeating: [], count: subscribers)
        var ended = [Set<String>](repeating: [], count: subscribers)
        var hashers = [[String: (count: Int, hasher: Hasher)]](repeating: [:], count: subscribers)
        // The end of each push: its event, which is never skipped (a starved daemon may skip the frame of
        // the final tick).
        let endMark = Array("transition.completed".utf8)
        var signalled = false
        var settledAt: ContinuousClock.Instant?
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if let settledAt, ContinuousClock.now - settledAt > .milliseconds(300) { break }
            let readiness = try poller.poll(timeout: .milliseconds(50))
            for index in sockets.indices where readiness[index].contains(.readable) {
                while let frames = try sockets[index].receiveMultipart(dontWait: true), frames.count == 2 {
                    let topic = frames[0]
                    if topic.starts(with: Array("hb/".utf8)) {
                        if let instance = try JSON.parse(frames[1])["instance"]?.stringValue {
                            heard[index].insert(instance)
                        }
                        continue
                    }
                    let parts = topic.split(separator: UInt8(ascii: "/"))
                    guard parts.count >= 2 else { continue }
                    let navigator = String(decoding: parts[1], as: UTF8.self)
                    var entry = hashers[index][navigator] ?? (0, Hasher())
                    entry.count += 1
                    frames[1].withUnsafeBytes { entry.hasher.combine(bytes: $0) }
                    hashers[index][navigator] = entry
                    if topic.first == UInt8(ascii: "e"), frames[1].firstRange(of: endMark) != nil {
                        ended[index].insert(navigator)
                    }
                }
            }
            if !signalled, heard.allSatisfy({ $0.count >= instances }) {
                signalled = true
                ready.signal()
            }
            if settledAt == nil, ended.allSatisfy({ navigators.isSubset(of: $0) }) { settledAt = .now }
        }
        return hashers.map { streams in streams.mapValues { Digest(count: $0.count, hash: $0.hasher.finalize()) } }
    }
}
