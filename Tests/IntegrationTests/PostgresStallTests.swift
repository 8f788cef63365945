import Foundation
import PostgresTestSupport
import SegueCore
import SeguePostgres
import Synchronization
import Testing

/// The frame loop while the log's database does not answer (docs/operations.md, "When the database
/// does not answer"): its reads wait a bounded time, so ticks and replies go on.
///
/// The database is made silent by an operator's `LOCK TABLE … ACCESS EXCLUSIVE`, which holds every
/// read of the log until the lock's transaction ends: a server that answers nothing, as one cut off
/// by the network or stuck on its disk does, without a network to cut.
@Suite(.serialized, .timeLimit(.minutes(2)), .choosesItsBackends) struct PostgresStallTests {
    /// A daemon that shares its log (`cluster.shards`) reads it on its loop: every command id, and
    /// the log's new events once a second. With the log locked for 3 s, an animation's ticks keep
    /// their pace, commands are answered `unavailable` at once, and service resumes by itself after.
    @Test func theFramesGoOnWhileTheLogDoesNotAnswer() throws {
        let (daemon, admin) = try Self.shardedDaemon()
        defer { daemon.stop() }
        let client = try TestClient(endpoint: daemon.commandEndpoint)
        try client.ok(["cmd": "create", "navigator": "spin", "root": "Home"])
        try client.ok(["cmd": "create", "navigator": "m", "root": "Home"])
        let ticks = ArrivalTimes(endpoint: daemon.publishEndpoint, topic: "tick/spin/")
        try client.ok(["cmd": "push", "navigator": "spin", "screen": "A", "animator": ["duration": 12]])
        usleep(500_000)

        let locker = try admin()
        try locker.execute("BEGIN; LOCK TABLE events, commands IN ACCESS EXCLUSIVE MODE")
        let locked = ContinuousClock.now
        var answers: [(code: String, took: Duration)] = []
        var index = 0
        while ContinuousClock.now < locked + .seconds(3) {
            let sent = ContinuousClock.now
            let reply = try client.call(
                [
                    "cmd": "push", "navigator": "m", "screen": .string("S\(index)"), "animated": false,
                    "id": .string("stall-\(index)"),
                ], timeout: .seconds(10))
            answers.append((reply["error"]?["code"]?.stringValue ?? "ok", ContinuousClock.now - sent))
            index += 1
            usleep(100_000)
        }
        try locker.execute("COMMIT")
        let unlocked = ContinuousClock.now
        usleep(1_000_000)
        let times = ticks.stop()

        let during = times.filter { $0 > locked && $0 < unlocked }
        let gaps = zip(during.dropFirst(), during).map { $0 - $1 }
        let longest = gaps.max() ?? .zero
        #expect(during.count > 60, "ticks went on while the log was locked: \(during.count) in 3 s")
        #expect(longest < .milliseconds(600), "the longest pause between ticks while locked: \(longest)")
        let slowest = answers.map(\.took).max() ?? .zero
        print(
            "Locked 3 s: \(during.count) ticks, longest pause \(longest); \(answers.count) commands, slowest answer "
                + "\(slowest), \(answers.filter { $0.code == "unavailable" }.count) unavailable")
        #expect(answers.count >= 10, "commands were answered while the log was locked: \(answers.count)")
        #expect(slowest < .seconds(1), "the slowest answer while locked: \(slowest)")
        #expect(
            answers.allSatisfy { $0.code == "unavailable" || $0.code == "ok" }, "\(answers.map(\.code))")
        #expect(answers.contains { $0.code == "unavailable" }, "a command whose id could not be looked up is refused")

        // Service resumes by itself once the lock is gone.
        var resumed: JSON?
        let deadline = ContinuousClock.now + .seconds(10)
        while resumed?["ok"] != true, ContinuousClock.now < deadline {
            resumed = try client.call(
                ["cmd": "push", "navigator": "m", "screen": "After", "animated": false, "id": "after-the-lock"])
            if resumed?["ok"] != true { usleep(200_000) }
        }
        #expect(resumed?["ok"] == true, "\(resumed?.serialized() ?? "")")
    }

    /// One daemon on its log, its appends held 1.5 s by `LOCK TABLE events IN EXCLUSIVE MODE`
    /// (reads go on): the commit on the loop's thread leaves the wait to the committer thread after
    /// 10 ms, so heartbeats keep their 100 ms pace, and the push is acknowledged once the lock goes.
    @Test func heartbeatsGoOnWhileACommitWaitsForTheServer() throws {
        let server = try StoreBackend.server()
        let url = try StoreBackend.newDatabase()
        let database = String(url.dropFirst("postgresql:///".count).prefix { $0 != "?" })
        let config = try DaemonProcess.configFile(#"{"heartbeatSeconds": 0.1}"#)
        let daemon = try DaemonProcess(store: .sqlite, arguments: ["--store-url", url] + config)
        defer { daemon.stop() }
        let client = try TestClient(endpoint: daemon.commandEndpoint)
        try client.ok(["cmd": "create", "navigator": "m", "root": "Home"])
        let heartbeats = ArrivalTimes(endpoint: daemon.publishEndpoint, topic: "hb/")

        let admin = try server.admin(database: database)
        try admin.execute("BEGIN; LOCK TABLE events IN EXCLUSIVE MODE")
        let locked = ContinuousClock.now
        let push: JSON = ["cmd": "push", "navigator": "m", "screen": "Held", "animated": false]
        try client.send(raw: push.serializedBytes())
        usleep(1_500_000)
        try admin.execute("ROLLBACK")
        let unlocked = ContinuousClock.now
        let reply = try client.receive(timeout: .seconds(10))
        usleep(300_000)
        let times = heartbeats.stop()

        #expect(reply["ok"] == true, "\(reply.serialized())")
        let during = times.filter { $0 > locked && $0 < unlocked }
        let longest = zip(during.dropFirst(), during).map { $0 - $1 }.max() ?? .zero
        print("Commit held 1.5 s: \(during.count) heartbeats, longest pause \(longest)")
        #expect(during.count >= 8, "heartbeats went on while the commit waited: \(during.count) in 1.5 s")
        #expect(longest < .milliseconds(600), "the longest pause between heartbeats: \(longest)")

        // Behind ACCESS EXCLUSIVE a commit fails after the writer's 2 s lock_timeout, and what comes
        // after a failure needs statements of its own (revisions, the log's end): none on the loop.
        let heartbeatsLocked = ArrivalTimes(endpoint: daemon.publishEndpoint, topic: "hb/")
        try admin.execute("BEGIN; LOCK TABLE events IN ACCESS EXCLUSIVE MODE")
        let exclusive = ContinuousClock.now
        for index in 0..<8 {
            let push: JSON = ["cmd": "push", "navigator": "m", "screen": .string("L\(index)"), "animated": false]
            try client.send(raw: push.serializedBytes())
            usleep(300_000)
        }
        try admin.execute("ROLLBACK")
        let released = ContinuousClock.now
        var codes: [String] = []
        for _ in 0..<8 {
            codes.append(try client.receive(timeout: .seconds(15))["error"]?["code"]?.stringValue ?? "ok")
        }
        let lockedTimes = heartbeatsLocked.stop().filter { $0 > exclusive && $0 < released }
        let longestLocked = zip(lockedTimes.dropFirst(), lockedTimes).map { $0 - $1 }.max() ?? .zero
        print("Tables locked 2.4 s: \(lockedTimes.count) heartbeats, longest pause \(longestLocked); \(codes)")
        #expect(lockedTimes.count >= 12, "heartbeats while the tables were locked: \(lockedTimes.count) in 2.4 s")
        #expect(longestLocked < .milliseconds(600), "the longest pause between heartbeats: \(longestLocked)")
        #expect(codes.allSatisfy { $0 == "ok" || $0 == "unavailable" }, "\(codes)")
        try client.ok(["cmd": "push", "navigator": "m", "screen": "After", "animated": false])
    }
}

/// When each message of `topic` arrived, on a thread of its own until `stop`.
final class ArrivalTimes: Sendable {
    private let times = Mutex<[ContinuousClock.Instant]>([])
    private let stopping = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)

    init(endpoint: String, topic: String) {
        let thread = Thread { [self] in
            defer { done.signal() }
            guard let subscriber = try? TestSubscriber(endpoint: endpoint, topics: [topic]),
                (try? subscriber.socket.setReceiveTimeout(.milliseconds(50))) != nil
            else { return }
            while !stopping.load(ordering: .relaxed) {
                guard (try? subscriber.socket.receiveMultipart()) ?? nil != nil else { continue }
                let now = ContinuousClock.now
                times.withLock { $0.append(now) }
            }
        }
        thread.start()
        usleep(200_000)
    }

    func stop() -> [ContinuousClock.Instant] {
        stopping.store(true, ordering: .relaxed)
        done.wait()
        return times.withLock { $0 }
    }
}

extension PostgresStallTests {
    /// A leadership change waits for the commits in flight, and commands wait meanwhile, unread.
    /// Their socket stays readable, so a loop that still polled it returned at once and spun a core
    /// for as long as a commit took (up to the writer's 2 s `lock_timeout` here, behind an
    /// operator's lock; seconds with the server cut off). It sleeps now.
    @Test func heldCommandsDoNotSpinTheLoop() throws {
        let (daemon, admin) = try Self.shardedDaemon()
        defer { daemon.stop() }
        let client = try TestClient(endpoint: daemon.commandEndpoint)
        try client.ok(["cmd": "create", "navigator": "m", "root": "Home"])

        let locker = try admin()
        try locker.execute("BEGIN; LOCK TABLE events IN EXCLUSIVE MODE")
        // A commit in flight behind the lock, then a leadership change, which waits for it.
        try client.send(
            raw: (["cmd": "push", "navigator": "m", "screen": "Held", "animated": false] as JSON).serializedBytes())
        usleep(100_000)
        // The function in the target list: a condition beside it may be evaluated for every row.
        // This database's session only: the server is shared with the daemons of tests running beside.
        let ended = try admin().query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'segued leadership' "
                + "AND datname = current_database()")
        try #require(try ended.rowCount == 1 && ended.bool(0, 0) == true, "the daemon's leadership session was ended")
        // The leadership thread looks every 100 ms; its step-down is applied once the commit ends.
        usleep(400_000)
        // A command waiting, unread, on the socket.
        let waiting = try TestClient(endpoint: daemon.commandEndpoint)
        try waiting.send(raw: (["cmd": "state", "navigator": "m"] as JSON).serializedBytes())
        usleep(50_000)
        let before = try Self.cpuSeconds(of: daemon.pid)
        let started = ContinuousClock.now
        usleep(700_000)
        let used = try Self.cpuSeconds(of: daemon.pid) - before
        let share = used / ((ContinuousClock.now - started) / .seconds(1))
        #expect(throws: TestClient.Timeout.self, "the command waited unread") {
            try waiting.receive(timeout: .milliseconds(10))
        }
        let log = try String(contentsOfFile: daemon.logPath, encoding: .utf8)
        #expect(!log.contains("Stepped down"), "the step-down waited for the commit: \(log)")
        try locker.execute("ROLLBACK")
        try MultiHostFanoutTests.await("Stepped down for shard(s)", in: daemon.logPath, timeout: .seconds(5))
        print("Commands held behind a leadership change: segued used \(Int(share * 100)) % of a core")
        #expect(share < 0.2, "the daemon's CPU while commands were held: \(share) of a core")
        #expect(try waiting.receive(timeout: .seconds(10))["ok"] == true, "the held command is answered after")
    }

    /// A daemon sharing its log (`cluster.shards`: two shards, both its own) on a new database, once
    /// it leads them, and a maker of admin sessions on that database.
    static func shardedDaemon() throws -> (DaemonProcess, () throws -> PostgresConnection) {
        let server = try StoreBackend.server()
        let url = try StoreBackend.newDatabase()
        let database = String(url.dropFirst("postgresql:///".count).prefix { $0 != "?" })
        let config = try DaemonProcess.configFile(#"{"cluster": {"shards": 2}}"#)
        let daemon = try DaemonProcess(store: .sqlite, arguments: ["--store-url", url] + config)
        do {
            try MultiHostFanoutTests.await("Took shard 1", in: daemon.logPath)
        } catch {
            daemon.stop()
            throw error
        }
        return (daemon, { try server.admin(database: database) })
    }

    /// A process's user and system CPU time, in seconds (`/proc/PID/stat`).
    static func cpuSeconds(of pid: pid_t) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // After the command name, which may hold spaces: fields 14 and 15 are utime and stime.
        let fields = stat[stat.index(after: stat.lastIndex(of: ")")!)...].split(separator: " ")
        let ticks = Double(fields[11])! + Double(fields[12])!
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
