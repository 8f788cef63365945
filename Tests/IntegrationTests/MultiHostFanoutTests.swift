import Foundation
import SegueClient
import SegueCore
import SegueWire
import Testing

/// Several hosts (network namespaces this test makes): PostgreSQL on one, three daemons leading two
/// shards each of the one log on three others, a relay merging them on a fifth, a second tier on a
/// sixth, and on a seventh 200 subscribers and 16 busy clients. The subscribers below the relays get
/// every tick and event of 50 navigators at 60 Hz byte for byte as a subscriber on each leader's own
/// host; the clients, following `moved` across the daemons, lose nothing they were acknowledged.
@Suite(.serialized, .timeLimit(.minutes(4)), .choosesItsBackends) struct MultiHostFanoutTests {
    static let enabled = NetworkHosts.unavailable == nil || NetworkHosts.isCI

    @Test(.enabled(if: enabled, "needs network namespaces: \(NetworkHosts.unavailable ?? "")"))
    func twoRelayTiersAcrossHostsDeliverEveryMessageByteIdentical() throws {
        try #require(NetworkHosts.unavailable == nil, "\(NetworkHosts.unavailable ?? "")")
        _ = try StoreBackend.server()
        let net = try NetworkHosts(hosts: ["pg", "d1", "d2", "d3", "relay1", "relay2", "clients"])
        defer {
            net.tearDown()
            #expect(net.remainingNamespaces.isEmpty, "every namespace removed")
        }
        let daemons = ["d1", "d2", "d3"]
        let logs = DaemonProcess.temporaryDirectory()
        let (server, url) = try PartitionTests.serverOnItsOwnHost(net, logs: logs, database: "fanout")
        defer { server.remove() }
        let placement = try ShardPlacement(
            url: StoreBackend.url(server, database: "fanout"), admin: try server.admin(database: "fanout"), shards: 6)
        let config = try DaemonProcess.configFile(#"{"heartbeatSeconds": 0.2, "cluster": {"shards": 6}}"#)
        var pids: [String: pid_t] = [:]
        for name in daemons {
            let address = net[name].address
            pids[name] =
                try net.start(
                    DaemonProcess.binary("segued"),
                    [
                        "--data-dir", logs + "/" + name, "--store-url", url, "--command", "tcp://\(address):7400",
                        "--publish", "tcp://\(address):7401",
                    ] + config, on: name, log: "\(logs)/\(name).log"
                ).processIdentifier
        }
        for name in daemons { try Self.await("Ready:", in: "\(logs)/\(name).log") }
        let daemonLogs = { daemons.map { "--- \($0):\n" + Self.read("\(logs)/\($0).log") }.joined() }
        // Shards 0 and 3 to d1, 1 and 4 to d2, 2 and 5 to d3.
        for (index, name) in daemons.enumerated() {
            try placement.hand(
                [index, index + 3], pausing: daemons.filter { $0 != name }.compactMap { pids[$0] },
                log: { Self.read("\(logs)/\(name).log") })
        }
        let leaders = try placement.leaders()
        let endpoints = daemons.map { "tcp://\(net[$0].address):7400" }
        for (index, endpoint) in endpoints.enumerated() {
            #expect(leaders[index] == endpoint && leaders[index + 3] == endpoint, "placement: \(leaders)")
        }
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
        let shards = ShardMap(count: 6)
        let ready = DispatchSemaphore(value: 0)
        var collectors: [(scope: [String], thread: HostThread<[[String: StreamDigests.Digest]]>)] = []
        for (index, daemon) in daemons.enumerated() {
            let own = names.filter { shards.shard(of: $0) % 3 == index }
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
        // 16 clients push and pop on navigators of every shard the whole time, through the list of
        // every daemon's endpoint; five more create and push the 50 animated navigators the same way.
        let busyNames = (0..<6).flatMap { ShardedCluster.names(inShard: $0, of: 6, count: 3, prefix: "busy") }
        let busy = try net["clients"].thread {
            BusyClients(navigators: Array(busyNames.prefix(16)), endpoints: endpoints)
        }.value()
        let animated = (0..<5).map { part in
            net["clients"].thread { () throws -> [String] in
                let client = try SegueClient(endpoint: endpoints.joined(separator: ","), timeout: .seconds(20))
                let mine = names.enumerated().filter { $0.offset % 5 == part }.map(\.element)
                var refused: [String] = []
                for name in mine {
                    for request: JSONObject in [
                        ["cmd": "create", "navigator": .string(name), "root": "Home"],
                        ["cmd": "push", "navigator": .string(name), "screen": "A", "animator": ["duration": 0.5]],
                    ] {
                        do { try client.call(request) } catch { refused.append("\(name): \(error)") }
                    }
                }
                return refused
            }
        }
        for part in animated {
            #expect(try part.value(timeout: .seconds(120)).isEmpty, "every create and push acknowledged")
        }

        var reference: [String: StreamDigests.Digest] = [:]
        for collector in collectors.prefix(3) {
            for (name, digest) in try collector.thread.value()[0] where collector.scope.contains(name) {
                reference[name] = digest
            }
        }
        #expect(reference.count == 50)
        // Each create's and push's three events, which are never skipped; ticks, of which a daemon
        // starved of CPU (the whole suite runs beside this test) may skip a push's every frame.
        #expect(reference.values.allSatisfy { $0.count >= 3 }, "each create's and push's events")
        #expect(reference.values.map(\.count).reduce(0, +) > 50 * 3, "ticks as well as events")
        var subscribers = 0
        for collector in collectors.dropFirst(3) {
            for streams in try collector.thread.value() {
                subscribers += 1
                let differing = names.filter { streams[$0] != reference[$0] }
                #expect(differing.isEmpty, "subscriber \(subscribers) differs on \(differing.prefix(5))")
            }
        }
        #expect(subscribers == 200)

        busy.stop()
        let acks = busy.acks
        let problems = try net["clients"].thread { try LogCheck.problems(endpoint: endpoints[0], acks: acks) }.value()
        print(
            "multi-host: \(acks.count) busy commands acknowledged by \(Set(acks.map(\.endpoint)).count) daemons, "
                + "\(busy.errors.count) unacknowledged; \(subscribers) subscribers below two relay tiers")
        #expect(Set(acks.map(\.endpoint)).count == 3, "every daemon acknowledged busy commands")
        #expect(busy.errors.isEmpty, "\(busy.errors.prefix(5))\n\(daemonLogs().suffix(30_000))")
        #expect(problems.isEmpty, "\(problems.prefix(10))\n\(daemonLogs().suffix(30_000))")
    }

    static func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

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

/// Subscribers to `topics` of one endpoint (by default heartbeats, and the ticks and events of the
/// navigators named `n…`), read by one thread: per subscriber and navigator, how many messages
/// arrived and a hash of their bytes in arrival order.
enum StreamDigests {
    struct Digest: Equatable, Sendable {
        var count: Int
        var hash: Int
    }

    /// Signals `ready` once every subscriber heard heartbeats of `instances` daemons, then collects
    /// until every subscriber had the `transition.completed` of each of `navigators` (and 300 ms more),
    /// or 60 s.
    static func collect(
        endpoint: String, subscribers: Int, instances: Int, navigators: Set<String>, ready: DispatchSemaphore,
        topics: [String] = ["tick/n", "event/n", "hb/"]
    ) throws -> [[String: Digest]] {
        let context = try ZMQContext()
        var poller = ZMQPoller()
        let sockets = try (0..<subscribers).map { _ in
            let socket = try ZMQSocket(context, .sub)
            try socket.setReceiveHighWaterMark(0)
            for topic in topics { try socket.subscribe(topic) }
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
