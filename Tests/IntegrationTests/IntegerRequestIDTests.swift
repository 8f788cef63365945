import Foundation
import SegueClient
import SegueCore
import Testing

/// An integer request id is the caller's: SegueClient sends it as given (the daemon echoes it as a
/// string), so a retry under it is answered from the first, not applied again.
@Suite(.ownThreads) struct IntegerRequestIDTests {
    @Test func aRetryUnderAnIntegerIDIsAppliedOnce() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let client = try SegueClient(endpoint: daemon.commandEndpoint, timeout: .seconds(5))
        try client.create("main", root: ScreenSpec(name: "Home"))
        let push: JSONObject = [
            "cmd": "push", "navigator": "main", "screen": "Detail", "animated": false, "id": 17,
        ]
        let first = try client.call(push)
        let again = try client.call(push)
        #expect(first["id"] == "17" && again == first, "\(again)")
        let state = try client.call(["cmd": "state", "navigator": "main"])
        #expect(state["stack"]?.arrayValue?.count == 2, "the push was applied twice: \(state)")
        // `segue raw` passes the id on as it was typed.
        let raw = try Cli.run(
            ["raw", #"{"cmd":"push","navigator":"main","screen":"Detail","animated":false,"id":17}"#], daemon: daemon)
        #expect(raw.status == 0 && raw.stdout.contains(#""id":"17""#), "\(raw)")
        #expect(try client.call(["cmd": "state", "navigator": "main"])["stack"]?.arrayValue?.count == 2)
    }
}
