import Foundation
import SegueClient
import SegueCore
import Synchronization
import Testing

/// Several `segued` on one PostgreSQL log, each on its own loopback ports (docs/operations.md,
/// "Several daemons on one log"), with clients that follow `moved`: what the failover tests kill
/// leaders under.
final class ShardedCluster: @unchecked Sendable {
    let url: String
    let shards: Int
    private(set) var daemons: [DaemonProcess]
    let arguments: [String]

    /// `count` daemons on a new database, started one after the other (the first takes every shard).
    /// `spread`: the shards dealt out round-robin instead (shard s to daemon s mod count), so that
    /// every daemon leads some and they append to the log at the same time.
    init(daemons count: Int, shards: Int, spread: Bool = false) throws {
        url = try StoreBackend.newDatabase()
        self.shards = shards
        arguments = ["--store-url", url] + (try DaemonProcess.configFile(#"{"cluster": {"shards": \#(shards)}}"#))
        daemons = []
        guard spread else {
            for _ in 0..<count {
                daemons.append(try DaemonProcess(store: .sqlite, arguments: arguments))
                try waitForLeader(of: 0)
            }
            return
        }
        let database = String(url.dropFirst("postgresql:///".count).prefix { $0 != "?" })
        let placement = try ShardPlacement(
            url: url, admin: try StoreBackend.server().admin(database: database), shards: shards)
        for _ in 0..<count { daemons.append(try DaemonProcess(store: .sqlite, arguments: arguments)) }
        for (index, daemon) in daemons.enumerated() {
            try placement.hand(
                Array(stride(from: index, to: shards, by: count)),
                pausing: daemons.filter { $0 !== daemon }.map(\.pid), log: { daemon.log })
        }
    }

    var endpoints: [String] { daemons.map(\.commandEndpoint) }

    /// The daemon leading `shard`: the one that does not answer a command there with `moved` (a pop
    /// of a navigator nobody creates: the leader says `unknown_navigator`).
    func leader(ofShard shard: Int) throws -> Int? {
        let navigator = Self.names(inShard: shard, of: shards, count: 1, prefix: "probe")[0]
        for (index, daemon) in daemons.enumerated() where daemon.process.isRunning {
            let client = try TestClient(endpoint: daemon.commandEndpoint)
            let reply = try client.call(["cmd": "pop", "navigator": .string(navigator), "animated": false])
            if reply["error"]?["code"] != "moved", reply["error"]?["code"] != "unavailable" { return index }
        }
        return nil
    }

    /// Waits until some daemon leads `shard`'s probe navigator.
    @discardableResult
    func waitForLeader(of shard: Int, timeout: Duration = .seconds(10)) throws -> Int {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let index = try leader(ofShard: shard) { return index }
            usleep(20_000)
        }
        throw WaitTimeout(what: "a leader of shard \(shard)")
    }

    /// Kills daemon `index` (SIGKILL) and starts it again on the same endpoints, as a standby.
    func kill(_ index: Int) { daemons[index].stop(signal: SIGKILL) }

    func restart(_ index: Int) throws { daemons[index] = try daemons[index].restarted(arguments: arguments) }

    func stopAll() { for daemon in daemons { daemon.stop() } }

    var logs: String { daemons.enumerated().map { "--- daemon \($0.offset):\n\($0.element.log)" }.joined() }

    /// `count` navigator names that fall in `shard`.
    static func names(inShard shard: Int, of shards: Int, count: Int, prefix: String) -> [String] {
        let map = ShardMap(count: shards)
        var names: [String] = []
        var number = 0
        while names.count < count {
            let name = "\(prefix)-\(number)"
            if map.shard(of: name) == shard { names.append(name) }
            number += 1
        }
        return names
    }
}

/// One acknowledged command of a failover workload.
struct Acknowledged: Sendable {
    var navigator: String
    var id: String
    var revision: Int64
    var seq: Int64
    /// When the reply came, and from which daemon.
    var at: ContinuousClock.Instant
    var endpoint: String
}

/// Clients that push and pop animated transitions (50 ms) on navigators of their own until stopped,
/// so that each leader's frame loop appends completions among the other daemons' events. Refusals
/// (`busy`, `moved`, `unavailable`) are expected and ignored: what counts is the log they leave.
final class AnimatingClients: Sendable {
    private let stopping = Atomic<Bool>(false)
    private let done = DispatchGroup()

    init(navigators: [String], endpoints: [String]) {
        for navigator in navigators {
            done.enter()
            Thread { [self] in
                defer { done.leave() }
                guard let client = try? SegueClient(endpoint: endpoints.joined(separator: ","), timeout: .seconds(15))
                else { return }
                _ = try? client.call(["cmd": "create", "navigator": .string(navigator), "root": "Home"])
                var step = 0
                while !stopping.load(ordering: .acquiring) {
                    step += 1
                    var request: JSONObject = [
                        "cmd": step % 2 == 1 ? "push" : "pop", "navigator": .string(navigator),
                        "animator": ["duration": 0.05],
                    ]
                    if step % 2 == 1 { request["screen"] = .string("S\(step)") }
                    _ = try? client.call(request)
                    usleep(70_000)
                }
            }.start()
        }
    }

    func stop() {
        stopping.store(true, ordering: .releasing)
        done.wait()
    }
}

/// Clients that each push and pop on a navigator of their own through `SegueClient` with every
/// daemon's endpoint, recording every acknowledged reply, until stopped.
final class BusyClients: Sendable {
    private let acknowledged = Mutex<[Acknowledged]>([])
    private let failures = Mutex<[String]>([])
    private let stopping = Atomic<Bool>(false)
    private let done = DispatchGroup()

    init(navigators: [String], endpoints: [String]) {
        for navigator in navigators {
            done.enter()
            let thread = Thread { [self] in
                defer { done.leave() }
                run(navigator, endpoints)
            }
            thread.start()
        }
    }

    var acks: [Acknowledged] { acknowledged.withLock { $0 } }
    var errors: [String] { failures.withLock { $0 } }

    func stop() {
        stopping.store(true, ordering: .releasing)
        done.wait()
    }

    /// The first acknowledgement after `instant` from another daemon than `endpoint`.
    func firstAck(after instant: ContinuousClock.Instant, notFrom endpoint: String) -> ContinuousClock.Instant? {
        acknowledged.withLock { acks in acks.lazy.filter { $0.at > instant && $0.endpoint != endpoint }.map(\.at).min()
        }
    }

    private func run(_ navigator: String, _ endpoints: [String]) {
        do {
            let client = try SegueClient(endpoint: endpoints.joined(separator: ","), timeout: .seconds(15))
            try record(
                client.call(["cmd": "create", "navigator": .string(navigator), "root": "Home"]), navigator, client)
            var depth = 1
            var step = 0
            while !stopping.load(ordering: .acquiring) {
                step += 1
                let push = depth < 4 && (depth == 1 || step % 3 != 0)
                var request: JSONObject = [
                    "cmd": push ? "push" : "pop", "navigator": .string(navigator), "animated": false,
                ]
                if push { request["screen"] = .string("S\(step)") }
                do {
                    try record(client.call(request), navigator, client)
                    depth += push ? 1 : -1
                } catch {
                    // Not acknowledged: it may or may not be in the log, and the stack is read again.
                    let state = Result { () throws(SegueClientError) in
                        try client.call(["cmd": "state", "navigator": .string(navigator)])
                    }
                    failures.withLock { $0.append("\(navigator): \(error)") }
                    if case .success(let state) = state { depth = state["stack"]?.arrayValue?.count ?? depth }
                }
            }
        } catch {
            failures.withLock { $0.append("\(navigator) could not start: \(error)") }
        }
    }

    private func record(_ reply: JSONObject, _ navigator: String, _ client: SegueClient) {
        guard let id = reply["id"]?.stringValue, let revision = reply["revision"]?.int64Value,
            let seq = reply["seq"]?.int64Value
        else { return }
        let ack = Acknowledged(
            navigator: navigator, id: id, revision: revision, seq: seq, at: .now, endpoint: client.endpoint)
        acknowledged.withLock { $0.append(ack) }
    }
}

/// What the failover tests check of the log once the clients stopped.
enum LogCheck {
    /// Every event of the log through `history` (any daemon serves it), checked: seq gapless from 1,
    /// revisions gapless per navigator, every acknowledged command's events present, and the fold
    /// of the log equal to what `state` answers. Returns the problems found.
    static func problems(endpoint: String, acks: [Acknowledged]) throws -> [String] {
        let client = try TestClient(endpoint: endpoint)
        var events: [EventRecord] = []
        var after: Int64 = 0
        while true {
            let page = try client.call(["cmd": "history", "after": .int(after), "limit": 1000])
            guard page["ok"] == true else { return ["history failed: \(page.serialized())"] }
            for event in page["events"]?.arrayValue ?? [] { events.append(try EventRecord(json: event)) }
            after = page["next"]?.int64Value ?? after
            if page["more"] != true { break }
        }
        var problems: [String] = []
        if !events.enumerated().allSatisfy({ Int64($0.offset + 1) == $0.element.seq }) {
            problems.append("seq is not gapless from 1 (\(events.count) events, last \(events.last?.seq ?? 0))")
        }
        // Frames and times never go back in a log, whichever daemon appended (`segue verify` checks it).
        for (before, event) in zip(events, events.dropFirst())
        where event.frame < before.frame || event.time < before.time {
            problems.append(
                "seq \(event.seq) goes back to frame \(event.frame) from \(before.frame) (seq \(before.seq))")
            break
        }
        var fleet = Fleet(clock: try FrameClock(rate: 60))
        for record in events {
            do { try fleet.apply(record) } catch {
                problems.append("the log does not fold at seq \(record.seq): \(error.message)")
                break
            }
        }
        let bySeq = Dictionary(events.map { ($0.seq, $0) }, uniquingKeysWith: { first, _ in first })
        for ack in acks {
            guard let event = bySeq[ack.seq], event.navigator == ack.navigator, event.revision == ack.revision else {
                problems.append(
                    "acknowledged \(ack.id) (\(ack.navigator) revision \(ack.revision), seq \(ack.seq)) is not in the log"
                )
                continue
            }
        }
        // A command's events are one unit, on consecutive seqs: an id applied twice would not be.
        var seqsByCommand: [String: [Int64]] = [:]
        for event in events { if let id = event.command { seqsByCommand[id, default: []].append(event.seq) } }
        let twice = seqsByCommand.filter { $0.value.last! - $0.value.first! + 1 != Int64($0.value.count) }
        if !twice.isEmpty { problems.append("command ids applied more than once: \(twice.keys.sorted().prefix(5))") }
        for (name, state) in fleet.navigators {
            let reply = try client.call(["cmd": "state", "navigator": .string(name)])
            if reply["revision"]?.int64Value != state.revision || TestClient.routes(reply) != state.stack.map(\.name) {
                problems.append(
                    "state of \(name) is \(reply.serialized()); the log folds to revision \(state.revision)")
            }
        }
        return problems
    }

    /// The p-th percentile (0...100) of `values`, nearest rank.
    static func percentile(_ p: Double, _ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[max(0, min(sorted.count - 1, rank - 1))]
    }
}
