import Foundation
import SegueWire
import Testing

@testable import SegueClient

/// `interruption` gives up a call whose reply is awaited, as `segue raw`'s prompt does on Ctrl-C.
@Suite struct InterruptionTests {
    /// A peer that takes requests and never answers: the call ends when `interruption` says so, long
    /// before its 5 s timeout, with kind `interrupted` and the request's id to retry it.
    @Test(arguments: [1, 3])
    func aSilentPeerIsGivenUpWhenInterruptionSaysSo(retries: Int) throws {
        let context = try ZMQContext()
        let router = try ZMQSocket(context, .router)
        try router.bind("tcp://127.0.0.1:*")
        defer {
            router.close()
            context.terminate()
        }
        let client = try SegueClient(endpoint: try router.lastEndpoint, timeout: .seconds(5), retries: retries)
        let start = ContinuousClock.now
        client.interruption = { ContinuousClock.now - start > .milliseconds(200) }
        let error = try #require(throws: SegueClientError.self) { try client.call(["cmd": "ping", "id": "p-1"]) }
        #expect(error.kind == .interrupted)
        #expect(error.requestID == "p-1")
        #expect(ContinuousClock.now - start < .seconds(1))
    }
}
