import Foundation
import SegueCore
import Testing

/// `segue log` for people: wall times, types, time ranges, and runs of updates folded.
@Suite(.ownThreads, .serialized) struct CliLogTests {
    /// A log with a gesture: create, push, then a swipe's begin, its updates and its cancel.
    static func session() throws -> DaemonProcess {
        let d = try DaemonProcess()
        try Cli.run(["create", "main", "Home"], daemon: d)
        try Cli.run(["push", "main", "Detail", "--no-animate"], daemon: d)
        let swipe = try Cli.run(
            ["swipe", "main", "pop", "--to", "0.5", "--over", "0.2s", "--then", "cancel", "--wait"], daemon: d)
        #expect(swipe.status == 2, "\(swipe.stderr)")
        return d
    }

    @Test func linesShowWallTimesLocallyOrInUTC() throws {
        let d = try Self.session()
        defer { d.stop() }
        let events = try Cli.run(["log", "--json"], daemon: d).stdout.split(separator: "\n").map {
            try JSON.parse(String($0))
        }
        let first = try #require(events.first)
        let seconds = Double(first["time"]?.int64Value ?? 0) / 1e9
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'"
        let utc = try Cli.run(["log", "--utc", "--limit", "1"], daemon: d)
        #expect(utc.stdout.hasPrefix("1\tmain#1\t\(formatter.string(from: Date(timeIntervalSince1970: seconds)))\t"))
        formatter.timeZone = TimeZone.current
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
        let local = try Cli.run(["log", "--limit", "1"], daemon: d)
        #expect(local.stdout.hasPrefix("1\tmain#1\t\(formatter.string(from: Date(timeIntervalSince1970: seconds)))\t"))
        #expect(!local.stdout.contains("\tframe "), "no raw frame numbers: \(local.stdout)")
    }

    @Test func typeSinceAndUntilFilter() throws {
        let d = try Self.session()
        defer { d.stop() }
        let all = try Cli.run(["log", "--json"], daemon: d).stdout.split(separator: "\n").map {
            try JSON.parse(String($0))
        }
        let cancels = try Cli.run(["log", "--type", "transition.cancelled", "--json"], daemon: d)
        #expect(cancels.stdout.split(separator: "\n").count == 1, "\(cancels.stdout)")
        let transitions = try Cli.run(["log", "--type", "transition.", "--json"], daemon: d)
        let expected = all.filter { $0["type"]?.stringValue?.hasPrefix("transition.") == true }.count
        #expect(transitions.stdout.split(separator: "\n").count == expected)
        #expect(try Cli.run(["log", "--since", "1h"], daemon: d).stdout.split(separator: "\n").count == all.count)
        #expect(try Cli.run(["log", "--until", "1h"], daemon: d).stdout.isEmpty)
        #expect(try Cli.run(["log", "--since", "2000-01-01", "--until", "2000-01-02"], daemon: d).stdout.isEmpty)
        let bad = try Cli.run(["log", "--since", "yesterday"], daemon: d)
        #expect(bad.status == 64)
        #expect(bad.stderr.hasPrefix("error: The value 'yesterday' is invalid for '--since': expected a time ago"))
    }

    @Test func compactFoldsRunsOfUpdates() throws {
        let d = try Self.session()
        defer { d.stop() }
        let all = try Cli.run(["log"], daemon: d).stdout.split(separator: "\n")
        let updates = all.filter { $0.contains("\tinteraction.updated\t") }.count
        #expect(updates >= 5, "\(all)")
        let compact = try Cli.run(["log", "--compact"], daemon: d).stdout.split(separator: "\n")
        #expect(compact.filter { $0.contains("\tinteraction.updated\t") }.count == 1, "\(compact)")
        #expect(compact.contains { $0.contains("… \(updates - 1) more interaction.updated (percent ") }, "\(compact)")
        #expect(compact.count == all.count - updates + 2)
        let both = try Cli.run(["log", "--compact", "--json"], daemon: d)
        #expect(both.status == 64 && both.stderr.contains("--compact folds lines for reading"), "\(both.stderr)")
    }
}
