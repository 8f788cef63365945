import Foundation
import SegueCore
import Testing

/// The real daemon starts, answers, publishes and stops cleanly, over tcp and over ipc.
@Suite(.ownThreads, .serialized) struct DaemonSmokeTests {
    @Test func startsAnswersPingAndStopsOnSIGTERM() throws {
        let daemon = try DaemonProcess()
        let client = try TestClient(endpoint: daemon.commandEndpoint)
        let pong = try client.call(["cmd": "ping", "id": "p"])
        #expect(pong["ok"] == true)
        #expect(pong["id"] == "p")
        #expect(pong["frameRate"] == 60)
        #expect(daemon.stop() == 0, "log:\n\(daemon.log)")
    }

    /// The daemon's threads carry their names where `top -H`, `ps -L` and `perf` show them: the
    /// store's committer is told apart from the frame loop (the process's name) and libzmq's threads.
    @Test func threadsCarryTheirNames() throws {
        let daemon = try DaemonProcess()
        let client = try TestClient(endpoint: daemon.commandEndpoint)
        #expect(try client.call(["cmd": "ping"])["ok"] == true)
        var names: [String: String] = [:]
        for task in try FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.pid)/task") {
            let comm = try? String(contentsOfFile: "/proc/\(daemon.pid)/task/\(task)/comm", encoding: .utf8)
            names[task] = comm?.trimmingCharacters(in: .newlines)
        }
        #expect(names["\(daemon.pid)"] == "segued", "\(names)")
        #expect(names.values.contains("segue-commit") && names.values.contains("segue-signals"), "\(names)")
        #expect(names.values.contains("ZMQbg/IO/0"), "\(names)")
        #expect(daemon.stop() == 0, "log:\n\(daemon.log)")
    }

    /// Over ipc sockets: DEALER and REQ clients, a push whose ticks arrive on `tick/main/`, and the
    /// final tick at fraction 1.
    @Test func servesDealerReqAndTicksOverIPC() throws {
        let daemon = try DaemonProcess(transport: .ipc)
        #expect(daemon.commandEndpoint.hasPrefix("ipc://"))
        let subscriber = try TestSubscriber(endpoint: daemon.publishEndpoint, topics: ["tick/main/"])
        let dealer = try TestClient(endpoint: daemon.commandEndpoint)
        let req = try TestClient(endpoint: daemon.commandEndpoint, kind: .req)
        #expect(try dealer.call(["cmd": "create", "navigator": "main", "root": "Home"])["ok"] == true)
        // Let the subscription reach the daemon before the transition starts.
        Thread.sleep(forTimeInterval: 0.3)
        let missedBefore = try dealer.missedFrames()
        let push = try req.call(["cmd": "push", "navigator": "main", "screen": "Detail", "animator": ["duration": 0.1]])
        #expect(push["ok"] == true)
        #expect(push["transition"] == 1)
        let ticks = try subscriber.collect(until: { _, body in body["final"] == true })
        // A loaded daemon skips frames without ticks (`missedFrames`): only those may lack one.
        let missed = try dealer.missedFrames() - missedBefore
        #expect(
            ticks.count <= 7 && Int64(ticks.count) + missed >= 7, "0.1 s at 60 Hz is 6 frames after the start frame")
        #expect(ticks.last?.body["fraction"] == 1.0)
        let state = try req.call(["cmd": "state", "navigator": "main"])
        #expect(state["stack"]?.arrayValue?.count == 2)
        #expect(daemon.stop() == 0, "log:\n\(daemon.log)")
    }
}
