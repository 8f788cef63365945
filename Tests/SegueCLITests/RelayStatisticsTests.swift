import SegueWire
import Testing

@testable import segue

/// The relay's counters in words, as its log and `--stats` print them.
@Suite struct RelayStatisticsTests {
    static func stats(published: UInt64, forwarded: UInt64, bytes: UInt64, subscriptions: UInt64)
        -> ZMQProxy.Statistics
    {
        ZMQProxy.Statistics(
            frontend: .init(messagesIn: published, bytesIn: bytes, messagesOut: subscriptions, bytesOut: 0),
            backend: .init(messagesIn: subscriptions, bytesIn: 0, messagesOut: forwarded, bytesOut: bytes))
    }

    static let cases: [(ZMQProxy.Statistics, String)] = [
        (
            stats(published: 0, forwarded: 0, bytes: 0, subscriptions: 0),
            "0 publications received, 0 forwarded (0 bytes); 0 subscription messages received, 0 sent upstream"
        ),
        (
            stats(published: 1, forwarded: 1, bytes: 520, subscriptions: 1),
            "1 publication received, 1 forwarded (520 bytes); 1 subscription message received, 1 sent upstream"
        ),
        (
            stats(published: 180_211, forwarded: 180_211, bytes: 68_500_000, subscriptions: 12),
            "180211 publications received, 180211 forwarded (68.5 MB); 12 subscription messages received, "
                + "12 sent upstream"
        ),
    ]

    @Test(arguments: cases)
    func described(stats: ZMQProxy.Statistics, text: String) {
        #expect(RelayControl.describe(stats) == text)
    }
}

/// Which `--control` endpoints only this host can reach (any other gets a warning).
@Suite struct RelayControlEndpointTests {
    @Test(arguments: [
        ("ipc:///run/segue/relay.ctl", true), ("tcp://127.0.0.1:7601", true), ("tcp://localhost:7601", true),
        ("tcp://[::1]:7601", true), ("tcp://10.88.0.2:7601", false), ("tcp://*:7601", false),
        ("tcp://eth0:7601", false),
    ])
    func local(endpoint: String, local: Bool) {
        #expect(RelayCommand.isLocal(endpoint) == local)
    }
}
