import SegueCommandLine
import Testing

@testable import segue

/// `relay --from` takes several endpoints in each of the ways a user writes them, in the order given.
@Suite struct RelayEndpointTests {
    @Test(arguments: [
        (["--from", "tcp://a:1"], ["tcp://a:1"]),
        (["--from", "tcp://a:1", "--from", "tcp://b:2"], ["tcp://a:1", "tcp://b:2"]),
        (["--from", "tcp://a:1", "tcp://b:2", "ipc:///c"], ["tcp://a:1", "tcp://b:2", "ipc:///c"]),
        (["--from", "tcp://a:1,tcp://b:2"], ["tcp://a:1", "tcp://b:2"]),
        (
            ["--from", "tcp://a:1, tcp://b:2", "--publish", "tcp://*:3", "--from", "tcp://c:4"],
            ["tcp://a:1", "tcp://b:2", "tcp://c:4"]
        ),
        // Empty items stay, for the endpoint check to refuse.
        (["--from", ""], [""]), (["--from", "tcp://a:1,"], ["tcp://a:1", ""]),
    ])
    func upstreamEndpoints(words: [String], endpoints: [String]) throws {
        let parsed = try RelayCommand.configuration.parse(words)
        #expect(RelayCommand.upstreamEndpoints(parsed) == endpoints)
    }

    /// `--stats-interval` 0 in any spelling logs no counters; anything else is a duration.
    @Test(arguments: [
        ("0", true), ("0.0", true), ("0s", true), ("0ms", true), ("0.000s", true), ("0.5", false), ("1ms", false),
        ("abc", false), ("", false), ("s", false),
    ])
    func aZeroStatsIntervalInAnySpelling(text: String, zero: Bool) {
        #expect(RelayCommand.isZero(text) == zero)
    }
}
