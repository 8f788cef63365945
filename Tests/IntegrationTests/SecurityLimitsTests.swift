import Foundation
import SegueCore
import SegueWire
import Synchronization
import Testing

/// Every configured limit answers with its own error, so one hostile or buggy client cannot bloat
/// the daemon (docs/operations.md, `limits.*`).
@Suite(.ownThreads, .serialized) struct SecurityLimitsTests {
    static func daemon(_ limits: JSON) throws -> (DaemonProcess, TestClient) {
        let dir = DaemonProcess.temporaryDirectory()
        let config = try Reliability.writeConfig(["limits": limits], in: dir)
        let daemon = try DaemonProcess(dataDir: dir, arguments: ["--config", config])
        return (daemon, try TestClient(endpoint: daemon.commandEndpoint))
    }

    static func code(_ reply: JSON) -> String? { reply["error"]?["code"]?.stringValue }

    @Test func oversizedMessageDisconnectsItsSender() throws {
        let (daemon, client) = try Self.daemon(["maxMessageBytes": 4096, "maxParamsBytes": 1024])
        let big: JSON = ["cmd": "ping", "id": "big", "pad": .string(String(repeating: "x", count: 8192))]
        #expect(throws: TestClient.Timeout.self) { try client.call(big, timeout: .seconds(1)) }
        // Just under the limit is an ordinary (if odd) request; others are unaffected.
        let other = try TestClient(endpoint: daemon.commandEndpoint)
        let fits = try other.call(["cmd": "ping", "id": "fits", "pad": .string(String(repeating: "x", count: 3000))])
        #expect(Self.code(fits) == "bad_request")
        #expect(try other.call(["cmd": "ping"])["ok"] == true)
        // segue says why there was no reply: the daemon closed the connection after the request.
        let cli = try Cli.run(
            ["push", "main", "Detail", "--timeout", "1s", "--param", "pad=" + String(repeating: "x", count: 8192)],
            daemon: daemon)
        #expect(cli.status == 3, "\(cli.stderr)")
        #expect(
            cli.stderr.contains(
                "segued closed the connection after the request was sent, as it does for a "
                    + "request over its limits.maxMessageBytes"), "\(cli.stderr)")
        #expect(daemon.stop() == 0)
    }

    /// Requests of a megabyte each, queued by one client while a transition animates: the loop
    /// closes each frame as it falls due instead of answering the whole queue first, so the ticks of
    /// every subscriber stall for about one such request, not for all of them. Measured in frames
    /// (a stall skips frames), against one request of the same size alone, in the same run.
    @Test(.alone, .frameTiming) func heavyRequestsWaitForTheFrameTheyWouldDelay() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let client = try TestClient(endpoint: daemon.commandEndpoint)
        try client.ok(["cmd": "create", "navigator": "n", "root": "Home"])
        let subscriber = try TestSubscriber(endpoint: daemon.publishEndpoint, topics: ["tick/", "hb/"])
        _ = try subscriber.collect(idle: .seconds(3), max: .seconds(3)) { topic, _ in topic.hasPrefix("hb/") }
        try client.ok(["cmd": "push", "navigator": "n", "screen": "A", "animator": ["duration": 30]])
        // A ping with a member it does not take: the whole megabyte is parsed before it is refused.
        let heavy =
            Array(#"{"cmd":"ping","x":["#.utf8) + Array(repeating: Array("0,".utf8), count: 519_990).flatMap { $0 }
            + Array(#"0]}"#.utf8)
        let start = ContinuousClock.now
        try client.send(raw: heavy)
        _ = try client.receive(timeout: .seconds(30))
        let one = ContinuousClock.now - start
        let count = 30
        nonisolated(unsafe) var frames: [Int64] = []
        nonisolated(unsafe) let ticks = subscriber
        let done = Atomic<Bool>(false)
        let collector = Thread {
            frames =
                ((try? ticks.collect(idle: .seconds(20), max: .seconds(120)) { _, _ in done.load(ordering: .relaxed) })
                ?? []).compactMap {
                    $0.body["frame"]?.int64Value
                }
        }
        collector.start()
        usleep(100_000)
        for _ in 0..<count { try client.send(raw: heavy) }
        for _ in 0..<count { _ = try client.receive(timeout: .seconds(60)) }
        usleep(200_000)
        done.store(true, ordering: .relaxed)
        while !collector.isFinished { usleep(10_000) }
        let gaps = zip(frames, frames.dropFirst()).map { $1 - $0 }

        let longest = gaps.max() ?? 0
        let oneInFrames = Double(one / .microseconds(1)) / 1e6 * 60
        print("heavy requests: one alone \(one), \(count) queued: the longest gap between ticks \(longest) frames")
        #expect(frames.count > count, "ticks went on: \(frames.count)")
        // Without the check, the gap is about `count` requests long.
        #expect(Double(longest) < max(4, 5 * oneInFrames), "\(longest) frames, one request \(oneInFrames) frames")
    }

    /// A client that pipelines requests and reads no reply fills its queue of 10,000 unread replies;
    /// the replies past it are lost (the commands stand), and segued says so instead of nothing.
    @Test func repliesAClientLeavesUnreadPastItsQueueAreReported() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let context = try ZMQContext()
        defer { context.terminate() }
        let socket = try ZMQSocket(context, .dealer)
        defer { socket.close() }
        try socket.setLinger(.zero)
        try socket.setReceiveHighWaterMark(1)
        try socket.setSendHighWaterMark(0)
        try socket.connect(daemon.commandEndpoint)
        let count = 30_000
        for index in 0..<count { _ = try socket.send(Array(#"{"cmd":"stats","id":"p\#(index)"}"#.utf8)) }
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline, !daemon.log.contains("Dropped ") { usleep(50_000) }
        #expect(
            daemon.log.contains(
                "<4>segued: Dropped 1 reply to a connection that does not read them (behind a broker, every client "
                    + "behind it): its queue of 10000 unread replies is full. Their requests were served"),
            "\(daemon.log.suffix(2000))")
        var replies = 0
        try socket.setReceiveTimeout(.seconds(2))
        while try socket.receive() != nil { replies += 1 }
        #expect(replies < count, "\(replies) replies")
        #expect(try TestClient(endpoint: daemon.commandEndpoint).call(["cmd": "ping"])["ok"] == true)
    }

    @Test func oversizedParamsAreTooLarge() throws {
        let (daemon, client) = try Self.daemon(["maxParamsBytes": 64])
        #expect(try client.call(["cmd": "create", "navigator": "main", "root": "Home"])["ok"] == true)
        let small = try client.call([
            "cmd": "push", "navigator": "main", "screen": ["name": "A", "params": ["k": "v"]],
            "animated": false,
        ])
        #expect(small["ok"] == true)
        let large = try client.call([
            "cmd": "push", "navigator": "main", "animated": false,
            "screen": ["name": "A", "params": ["k": .string(String(repeating: "v", count: 100))]],
        ])
        #expect(Self.code(large) == "too_large", "\(large)")
        #expect(daemon.stop() == 0)
    }

    @Test func stackDepthIsBounded() throws {
        let (daemon, client) = try Self.daemon(["maxStackDepth": 3])
        #expect(try client.call(["cmd": "create", "navigator": "main", "root": "Home"])["ok"] == true)
        for _ in 0..<2 {
            #expect(
                try client.call(["cmd": "push", "navigator": "main", "screen": "A", "animated": false])["ok"] == true)
        }
        let deep = try client.call(["cmd": "push", "navigator": "main", "screen": "A", "animated": false])
        #expect(Self.code(deep) == "too_large", "\(deep)")
        let present = try client.call(["cmd": "present", "navigator": "main", "screen": "M", "animated": false])
        #expect(Self.code(present) == "too_large", "\(present)")
        let asked = try client.call(["cmd": "create", "navigator": "other", "root": "Home", "maxDepth": 10])
        #expect(Self.code(asked) == "too_large", "\(asked)")
        #expect(daemon.stop() == 0)
    }

    @Test func navigatorCountIsBounded() throws {
        let (daemon, client) = try Self.daemon(["maxNavigators": 2])
        for name in ["a", "b"] {
            #expect(try client.call(["cmd": "create", "navigator": .string(name), "root": "Home"])["ok"] == true)
        }
        let third = try client.call(["cmd": "create", "navigator": "c", "root": "Home"])
        #expect(Self.code(third) == "too_large", "\(third)")
        #expect(try client.call(["cmd": "list"])["navigators"]?.arrayValue?.count == 2)
        // A closed name is never reused, so closing one frees nothing, and the refusal says so.
        #expect(try client.call(["cmd": "close", "navigator": "a"])["ok"] == true)
        let after = try client.call(["cmd": "create", "navigator": "c", "root": "Home"])
        #expect(Self.code(after) == "too_large", "\(after)")
        #expect(
            after["error"]?["message"]?.stringValue
                == "create on navigator c: the daemon holds its limit of 2 navigators, closed ones included (a "
                + "closed name is never reused); raise limits.maxNavigators.")
        #expect(daemon.stop() == 0)
    }

    @Test func fullQueueIsBusy() throws {
        let (daemon, client) = try Self.daemon(["maxQueue": 2])
        #expect(try client.call(["cmd": "create", "navigator": "q", "root": "Home", "busy": "queue"])["ok"] == true)
        let slow: JSON = ["cmd": "push", "navigator": "q", "screen": "A", "animator": ["duration": 5]]
        #expect(try client.call(slow)["transition"] == 1)
        #expect(try client.call(slow)["queued"] == 1)
        #expect(try client.call(slow)["queued"] == 2)
        let full = try client.call(slow)
        #expect(Self.code(full) == "busy", "\(full)")
        let asked = try client.call(["cmd": "create", "navigator": "r", "root": "Home", "queueLimit": 3])
        #expect(Self.code(asked) == "too_large", "\(asked)")
        #expect(
            asked["error"]?["message"]?.stringValue
                == "create on navigator r: queueLimit 3 is past the daemon's limits.maxQueue of 2.")
        #expect(daemon.stop() == 0)
    }
}
