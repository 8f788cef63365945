import Testing

@testable import SegueClient

/// A subscriber's queue is bounded: a reader that falls behind loses messages (and catches up from
/// the log) rather than growing without limit.
@Suite struct SegueSubscriberTests {
    @Test(arguments: [nil, 20] as [Int?])
    func theReceiveQueueIsBounded(limit: Int?) throws {
        // Nobody listens here: the subscriber connects in the background and gives up waiting at once.
        let endpoint = "inproc://segue-subscriber-tests-\(limit ?? 0)"
        let subscriber =
            try limit.map {
                try SegueSubscriber(endpoint: endpoint, topics: ["tick/"], ready: .zero, receiveLimit: $0)
            } ?? SegueSubscriber(endpoint: endpoint, topics: ["tick/"], ready: .zero)
        let expected = limit ?? SegueSubscriber.defaultReceiveLimit
        #expect(try subscriber.socket.receiveHighWaterMark == expected)
        #expect(expected > 0, "0 would be unlimited")
    }
}
