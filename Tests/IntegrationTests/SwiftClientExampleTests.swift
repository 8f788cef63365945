import Foundation
// Only what an app imports: the example must compile with these alone.
import SegueClient
import SegueCore
import Testing

/// docs/protocol.md's Swift example, run against a real daemon; the document embeds the code
/// between the markers below byte for byte (checked here too).
@Suite(.ownThreads) struct SwiftClientExampleTests {
    @Test(.alone, .frameTiming) func theSwiftExampleRunsAgainstTheDaemon() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let ticks = try Self.example(command: daemon.commandEndpoint, publish: daemon.publishEndpoint)
        #expect(ticks.count >= 2)
        #expect(ticks.last?.final == true && ticks.last?.fraction == 1)
    }

    // example begin
    /// Creates a navigator, pushes a screen with an id it can retry under, and returns the push's
    /// ticks, one a frame, as a view that arrived late would follow them.
    static func example(command: String, publish: String) throws -> [PublishedTick] {
        let client = try SegueClient(endpoint: command, timeout: .seconds(2))
        try client.create("main", root: ScreenSpec(name: "Home"))
        // A view that joins late: subscribe, then snapshot, then the events and ticks after it.
        let view = try CatchUpSubscription(client: client, publishEndpoint: publish, navigators: ["main"])
        let id = client.nextID()
        do {
            try client.push("main", ScreenSpec(name: "Detail"), envelope: CommandEnvelope(requestID: id))
        } catch {
            // A "no" stands; silence or `unavailable` is not known to have failed: the same id again
            // is applied at most once.
            guard error.kind == .timeout || error.code == .unavailable else { throw error }
            try client.push("main", ScreenSpec(name: "Detail"), envelope: CommandEnvelope(requestID: id))
        }
        var ticks: [PublishedTick] = []
        while let update = try view.next(timeout: .seconds(2)) {
            guard case .tick(let tick) = update else { continue }  // also snapshots, events, heartbeats
            ticks.append(tick)
            if tick.final { break }
        }
        return ticks
    }
    // example end

    @Test func theDocumentEmbedsTheExampleVerbatim() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let document = try String(contentsOf: root.appendingPathComponent("docs/protocol.md"), encoding: .utf8)
        let begin = try #require(source.range(of: "    // example begin\n"))
        let end = try #require(source.range(of: "    // example end\n"))
        let code = source[begin.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("    ") ? String($0.dropFirst(4)) : String($0) }.joined(separator: "\n")
        let marker = "<!-- example: Tests/IntegrationTests/SwiftClientExampleTests.swift -->\n```swift\n"
        let start = try #require(document.range(of: marker), "protocol.md must embed the example after \(marker)")
        let close = try #require(document.range(of: "\n```\n", range: start.upperBound..<document.endIndex))
        #expect(
            String(document[start.upperBound..<close.lowerBound]) + "\n" == code,
            "docs/protocol.md's Swift example differs from the test's; copy it into the doc")
    }
}
