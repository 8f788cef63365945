import Foundation
import SegueCore
import Testing

/// The real daemon starts, answers, and stops cleanly.
@Suite(.serialized) struct DaemonSmokeTests {
    @Test func startsAnswersPingAndStopsOnSIGTERM() throws {
        let daemon = try DaemonProcess()
        let client = try TestClient(endpoint: daemon.commandEndpoint)
        let pong = try client.call(["cmd": "ping", "id": "p"])
        #expect(pong["ok"] == true)
        #expect(pong["id"] == "p")
        #expect(pong["frameRate"] == 60)
        #expect(daemon.stop() == 0, "log:\n\(daemon.log)")
    }
}
