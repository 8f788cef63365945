import Foundation
import SegueCore
import Testing

/// The bytes on the wire, pinned: a scripted session against the real `segued` records every reply,
/// event, tick and one heartbeat, and compares them with `Golden/wire-session.txt`, written by the
/// build that fixed the wire format. A refactor of the engine or the codec that changes a single byte
/// of any message (member order, number spelling, a renamed code) fails here.
///
/// What depends on when the test runs is masked (`WireTranscript.mask`): times (`presentAt` and
/// `ping`'s `clock` too), frame numbers, the
/// run's instance, the version, and every counter of `stats`. Ticks that differ only in their frame
/// (an interactive transition held still between updates) are folded into one, so the transcript
/// does not depend on how many frames passed between two commands. Each step waits for what it
/// started to end, so every event and tick has one place in the transcript.
///
/// `SEGUE_UPDATE_GOLDEN=1 swift test --filter WireGoldenTests` writes the file anew: only when the
/// wire is meant to change, and docs/protocol.md with it. The transcript pins which commands land
/// within one frame (a tick shows the revision at its frame), so it is a test of frame timing.
@Suite(.ownThreads, .alone, .serialized, .frameTiming) struct WireGoldenTests {
    static let goldenPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Golden/wire-session.txt").path

    @Test func aScriptedSessionPutsTheSameBytesOnTheWire() throws {
        // A missed frame (a stall of several frames on a loaded machine) is the daemon's documented
        // degradation, not a change of format: the session is run again in a fresh daemon, up to 3 times.
        var transcript = try WireSession.run()
        for _ in 2...3 where transcript.missedFrames > 0 { transcript = try WireSession.run() }
        try #require(transcript.missedFrames == 0, "the daemon skipped frames in all three runs")
        let text = transcript.text
        if ProcessInfo.processInfo.environment["SEGUE_UPDATE_GOLDEN"] == "1" {
            try text.write(toFile: Self.goldenPath, atomically: true, encoding: .utf8)
        }
        let golden = try String(contentsOfFile: Self.goldenPath, encoding: .utf8)
        let got = text.split(separator: "\n", omittingEmptySubsequences: false)
        let want = golden.split(separator: "\n", omittingEmptySubsequences: false)
        let common = min(got.count, want.count)
        let firstDifference = (0..<common).first { got[$0] != want[$0] } ?? (got.count == want.count ? nil : common)
        if let line = firstDifference {
            let actual = NSTemporaryDirectory() + "wire-session.actual.txt"
            try? text.write(toFile: actual, atomically: true, encoding: .utf8)
            Issue.record(
                """
                The wire differs from \(Self.goldenPath) at line \(line + 1) (whole transcript: \(actual)):
                want: \(line < want.count ? String(want[line]) : "(end)")
                got:  \(line < got.count ? String(got[line]) : "(end)")
                """)
        }
        #expect(got.count > 150, "the session recorded too little: \(got.count) lines")
    }
}

/// What a session put on the wire, in the golden file's form: replies in request order, then events
/// in seq order, then ticks per navigator in frame order, then the last heartbeat.
struct WireTranscript {
    var replies: [String] = []
    var events: [String] = []
    var ticks: [String: [String]] = [:]
    var heartbeat: String?
    var missedFrames: Int64 = 0

    var text: String {
        var lines = ["# replies"] + replies + ["# events"] + events
        for navigator in ticks.keys.sorted() {
            lines.append("# ticks of \(navigator)")
            lines += ticks[navigator]!
        }
        lines += ["# heartbeat", heartbeat ?? "(none)"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// Adds a published message; a tick equal to the previous one of its navigator once masked is
    /// the same picture on a later frame, and is folded into it.
    mutating func record(topic: String, raw: [UInt8]) {
        let line = Self.mask(raw)
        if topic.hasPrefix("event/") {
            events.append(line)
        } else if topic.hasPrefix("tick/") {
            let navigator = String(topic.dropFirst("tick/".count).dropLast())
            if ticks[navigator]?.last != line { ticks[navigator, default: []].append(line) }
        } else if topic == "hb/" {
            heartbeat = line
        }
    }

    static let volatileMembers = try! NSRegularExpression(
        pattern: #""(time|presentAt|clock|frame|instance)":("[^"]*"|-?[0-9][0-9.eE+-]*)"#)
    /// The daemon's version string (an event's numeric `version`, its format, stays as it is).
    static let daemonVersion = try! NSRegularExpression(pattern: #""version":"[^"]*""#)
    static let anyNumber = try! NSRegularExpression(pattern: #":-?[0-9][0-9.eE+-]*"#)

    /// The message with its run-dependent values replaced by `#`, byte for byte otherwise.
    static func mask(_ raw: [UInt8], everyNumber: Bool = false) -> String {
        let text = String(decoding: raw, as: UTF8.self)
        let range = NSRange(text.startIndex..., in: text)
        let timeless = volatileMembers.stringByReplacingMatches(in: text, range: range, withTemplate: #""$1":#"#)
        let masked = daemonVersion.stringByReplacingMatches(
            in: timeless, range: NSRange(timeless.startIndex..., in: timeless), withTemplate: #""version":#"#)
        guard everyNumber else { return masked }
        return anyNumber.stringByReplacingMatches(
            in: masked, range: NSRange(masked.startIndex..., in: masked), withTemplate: ":#")
    }
}
