import Foundation
import SegueClient
import SegueCore
import Synchronization
import Testing

/// docs/design.md, "Recovery": after a crash (SIGKILL) and a restart on the same data dir, an animated transition
/// completes at the frame it was scheduled for, and an interactive one, whose gesture is gone, is
/// cancelled with reason `recovery`.
@Suite(.ownThreads) struct RestartTests {
    @Test(.choosesItsBackends, arguments: StoreBackend.allCases)
    func anAnimatedTransitionCompletesOnScheduleAfterACrash(store: StoreBackend) throws {
        let daemon = try DaemonProcess(store: store)
        let c = try TestClient(endpoint: daemon.commandEndpoint)
        try c.ok(["cmd": "create", "navigator": "r", "root": "Home"])
        let duration = 1.5
        let push = try c.ok([
            "cmd": "push", "navigator": "r", "screen": "Detail", "animator": ["duration": .double(duration)],
        ])
        #expect(push["phase"] == "animating")
        usleep(150_000)
        #expect(daemon.stop(signal: SIGKILL) == 128 + SIGKILL)
        let restarted = try daemon.restarted()
        defer { restarted.stop() }
        let after = try TestClient(endpoint: restarted.commandEndpoint)
        let during = try after.ok(["cmd": "state", "navigator": "r"])
        #expect(during["transition"]?["phase"] == "animating", "still running after the restart")
        #expect(TestClient.routes(try after.waitIdle("r")) == ["Home", "Detail"])
        let events = try after.events(of: "r")
        #expect(events.map(\.type) == ["navigator.created", "transition.started", "transition.completed"])
        let started = events[1].frame
        #expect(events[2].frame == started + Int64((duration * 60).rounded(.up)))
        #expect(events[2].command == nil, "decided by the clock")
    }

    @Test(.choosesItsBackends, arguments: StoreBackend.allCases)
    func anInteractiveTransitionIsCancelledForRecovery(store: StoreBackend) throws {
        let daemon = try DaemonProcess(store: store)
        // Connected before the crash, it reconnects by itself to the restarted daemon. It reads all the
        // time, as a frontend's event loop does: libzmq attaches the new connection (and sends the
        // subscription again) only while the application calls into the socket.
        let reader = try EventReader(endpoint: daemon.publishEndpoint, topic: "event/r/")
        defer { reader.stop() }
        let c = try TestClient(endpoint: daemon.commandEndpoint)
        try c.ok(["cmd": "create", "navigator": "r", "root": "Home"])
        try c.ok(["cmd": "push", "navigator": "r", "screen": "Detail", "animated": false])
        try c.ok(["cmd": "begin", "navigator": "r", "operation": "pop", "owner": "finger"])
        try c.ok(["cmd": "update", "navigator": "r", "percent": 0.4, "owner": "finger"])
        // Ticks keep showing the gesture at 0.4 until the crash: the recovery may not predate them.
        usleep(300_000)
        let seen = try #require(try c.ok(["cmd": "ping"])["frame"]?.int64Value)
        #expect(daemon.stop(signal: SIGKILL) == 128 + SIGKILL)
        let restarted = try daemon.restarted()
        defer { restarted.stop() }
        let after = try TestClient(endpoint: restarted.commandEndpoint)
        let state = try after.ok(["cmd": "state", "navigator": "r"])
        #expect(state["transition"] == .null, "resolved before the daemon answers")
        #expect(TestClient.routes(state) == ["Home", "Detail"], "a cancelled pop leaves the stack as it was")
        let last = try #require(try after.events(of: "r").last)
        #expect(last.type == "transition.cancelled")
        #expect(last.data["reason"] == "recovery")
        #expect(last.frame > seen, "cancelled at \(last.frame), after frame \(seen) was already published")
        // ...and published, not only logged, so that a frontend showing the gesture learns it is
        // over.
        let deadline = ContinuousClock.now + .seconds(5)
        while (reader.events.last?.seq ?? 0) < last.seq, ContinuousClock.now < deadline { usleep(20_000) }
        let published = reader.events
        #expect(published.last == last, "\(published.map(\.seq))\n\(restarted.log)")
        try after.fails(["cmd": "update", "navigator": "r", "percent": 0.5, "owner": "finger"], .noTransition)
        try after.ok(["cmd": "pop", "navigator": "r", "animated": false])
    }

    @Test(.choosesItsBackends, arguments: StoreBackend.allCases)
    func aRetryAfterARestartGetsTheOriginalReply(store: StoreBackend) throws {
        let daemon = try DaemonProcess(store: store)
        let c = try TestClient(endpoint: daemon.commandEndpoint)
        try c.ok(["cmd": "create", "id": "make", "navigator": "r", "root": "Home"])
        let push: JSON = ["cmd": "push", "id": "tap", "navigator": "r", "screen": "A", "animator": ["duration": 0.05]]
        try c.send(raw: push.serializedBytes())
        let original = try c.receiveFrames()
        try c.waitIdle("r")
        let seq = try c.lastSeq()
        #expect(daemon.stop(signal: SIGKILL) == 128 + SIGKILL)
        let restarted = try daemon.restarted()
        defer { restarted.stop() }
        let after = try TestClient(endpoint: restarted.commandEndpoint)
        try after.send(raw: push.serializedBytes())
        #expect(try after.receiveFrames() == original, "the stored reply, byte for byte")
        #expect(try after.lastSeq() == seq)
        #expect(TestClient.routes(try after.ok(["cmd": "state", "navigator": "r"])) == ["Home", "A"])
    }
}

/// A subscriber read on a thread of its own, all the time, as a frontend's event loop reads it.
private final class EventReader: @unchecked Sendable {
    private let state = Mutex<(events: [EventRecord], stopped: Bool)>(([], false))
    private let done = DispatchSemaphore(value: 0)

    init(endpoint: String, topic: String) throws {
        nonisolated(unsafe) let subscriber = try SegueSubscriber(endpoint: endpoint, topics: [topic])
        Thread { [self] in
            while !state.withLock({ $0.stopped }) {
                if case .event(let event)? = try? subscriber.next(timeout: .milliseconds(50)) {
                    state.withLock { $0.events.append(event) }
                }
            }
            done.signal()
        }.start()
    }

    var events: [EventRecord] { state.withLock { $0.events } }

    func stop() {
        state.withLock { $0.stopped = true }
        done.wait()
    }
}
