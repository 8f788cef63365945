import Foundation
import SegueCore
import SegueWire
import Synchronization
import Testing

@testable import SegueClient

/// Several daemons on one log: the endpoint list a client takes, and the `moved` replies it follows.
@Suite struct EndpointListTests {
    @Test(arguments: [
        ("tcp://a:7400", ["tcp://a:7400"]),
        ("tcp://a:7400,tcp://b:7400", ["tcp://a:7400", "tcp://b:7400"]),
        (" tcp://a:7400 , tcp://b:7400 ,", ["tcp://a:7400", "tcp://b:7400"]),
        ("ipc:///run/segue/command.sock", ["ipc:///run/segue/command.sock"]),
    ])
    func aCommaSeparatedListIsSplit(list: String, endpoints: [String]) {
        #expect(SegueClient.split(list) == endpoints)
    }

    @Test(
        arguments: [
            (
                #"{"ok": false, "error": {"code": "moved", "message": "…", "leader": "tcp://b:7400", "shard": 3}}"#,
                "tcp://b:7400"
            ),
            (#"{"ok": false, "error": {"code": "unavailable", "message": "…"}}"#, nil),
            (#"{"ok": true, "leader": "tcp://b:7400"}"#, nil),
            (#"{"ok": false, "error": {"code": "moved", "message": "…"}}"#, nil),
        ] as [(String, String?)])
    func onlyAMovedReplyNamesALeader(reply: String, leader: String?) throws {
        let object = try #require(try JSON.parse(Array(reply.utf8)).objectValue)
        #expect(SegueClient.movedLeader(object) == leader)
    }
}

extension EndpointListTests {
    /// Two daemons that send a command to each other for a while (a change of leadership that has
    /// not reached both yet) make the client pause and ask again until one of them takes it, within
    /// its timeout, rather than give up after `maxHops` replies a few milliseconds apart.
    @Test func movedBackAndForthIsAskedAgainUntilOneDaemonTakesIt() throws {
        let settled = ContinuousClock.now + .milliseconds(400)
        let daemons = try FakeDaemons(count: 2) { index, id, endpoints in
            ContinuousClock.now < settled
                ? [
                    "id": .string(id), "ok": false,
                    "error": ["code": "moved", "message": "…", "leader": .string(endpoints[1 - index]), "shard": 1],
                ]
                : ["id": .string(id), "ok": true, "revision": 1]
        }
        defer { daemons.stop() }
        let endpoints = daemons.endpoints
        let client = try SegueClient(endpoint: endpoints.joined(separator: ","), timeout: .seconds(5))
        let reply = try client.call(["cmd": "push", "navigator": "main", "screen": "A"])
        #expect(reply["revision"] == 1)
        #expect(ContinuousClock.now >= settled)
    }
}

extension EndpointListTests {
    /// Two daemons that each take 450 ms to answer (a `history` page on a busy daemon): the client
    /// waits longer at each pass over the list, so one of them gets to answer. With 300 ms each time it
    /// left every daemon before its reply and timed out.
    @Test func slowDaemonsAreWaitedForLongerEachPass() throws {
        let daemons = try FakeDaemons(count: 2, delay: .milliseconds(450)) { _, id, _ in
            ["id": .string(id), "ok": true, "events": []]
        }
        defer { daemons.stop() }
        let endpoints = daemons.endpoints
        let client = try SegueClient(endpoint: endpoints.joined(separator: ","), timeout: .seconds(10))
        let reply = try client.call(["cmd": "history", "after": 0])
        #expect(reply["ok"] == true)
    }

    /// Another ZeroMQ service at the endpoint answers something that is not segued's: `malformed`,
    /// a sentence that names the endpoint.
    @Test func aReplyThatIsNotJSONNamesItsEndpoint() throws {
        let context = try ZMQContext()
        let router = try ZMQSocket(context, .router)
        try router.bind("tcp://127.0.0.1:*")
        let endpoint = try router.lastEndpoint
        nonisolated(unsafe) let socket = router
        let answered = Thread {
            var poller = ZMQPoller()
            poller.add(socket)
            guard let ready = try? poller.poll(timeout: .seconds(5)), ready[0].contains(.readable),
                let frames = try? socket.receiveMultipart(dontWait: true)
            else { return }
            _ = try? socket.sendMultipart(frames.dropLast() + [Array("HTTP/1.1 400".utf8)])
        }
        answered.start()
        defer {
            while !answered.isFinished { usleep(1_000) }
            router.close()
            context.terminate()
        }
        let client = try SegueClient(endpoint: endpoint, timeout: .seconds(5))
        let error = try #require(throws: SegueClientError.self) { try client.ping() }
        #expect(error.kind == .malformed)
        #expect(
            error.message == "The reply from \(endpoint) is not a JSON object; is segued's command endpoint there?")
    }
}

/// Routers on loopback standing in for daemons: each request is answered, `delay` after it came, with
/// what `reply` makes of the daemon's index, the request's id and every daemon's endpoint; on a
/// thread of their own until `stop`.
final class FakeDaemons: Sendable {
    let endpoints: [String]
    private let context: ZMQContext
    private let stopping = Atomic<Bool>(false)
    private let stopped = DispatchSemaphore(value: 0)

    init(
        count: Int, delay: Duration = .zero, reply: @escaping @Sendable (Int, String, [String]) -> JSON
    ) throws {
        context = try ZMQContext()
        let context = context
        let sockets = try (0..<count).map { _ in
            let socket = try ZMQSocket(context, .router)
            try socket.bind("tcp://127.0.0.1:*")
            return socket
        }
        endpoints = try sockets.map { try $0.lastEndpoint }
        let endpoints = endpoints
        // The sockets are the server thread's until it stopped.
        nonisolated(unsafe) let owned = sockets
        Thread { [self] in
            defer {
                for socket in owned { socket.close() }
                stopped.signal()
            }
            var poller = ZMQPoller()
            for socket in owned { poller.add(socket) }
            var due: [(at: ContinuousClock.Instant, socket: Int, frames: [[UInt8]])] = []
            while !stopping.load(ordering: .acquiring) {
                guard let ready = try? poller.poll(timeout: .milliseconds(10)) else { return }
                for index in owned.indices where ready[index].contains(.readable) {
                    if let frames = try? owned[index].receiveMultipart(dontWait: true) {
                        due.append((ContinuousClock.now + delay, index, frames))
                    }
                }
                while let first = due.first, first.at <= ContinuousClock.now {
                    due.removeFirst()
                    guard let id = (try? JSON.parse(first.frames[first.frames.count - 1]))?["id"]?.stringValue
                    else { continue }
                    let body = reply(first.socket, id, endpoints).serializedBytes()
                    _ = try? owned[first.socket].sendMultipart(first.frames.dropLast() + [body])
                }
            }
        }.start()
    }

    func stop() {
        stopping.store(true, ordering: .releasing)
        stopped.wait()
        context.terminate()
    }
}
