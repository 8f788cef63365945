import Foundation
import SegueCore

@testable import SegueStore

/// A fresh directory per test, removed when the fixture goes away.
final class TemporaryDirectory {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "segue-store-tests-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }
}

/// Numbers events the way the daemon does: global seq after the log, revision after the navigator.
struct Numberer {
    var seq: Int64 = 0
    var revisions: [String: Int64] = [:]

    init(seq: Int64 = 0, revisions: [String: Int64] = [:]) {
        self.seq = seq
        self.revisions = revisions
    }

    /// The next `count` events of `navigator` as one unit, with `commandID` as their command.
    mutating func unit(_ navigator: String, count: Int = 1, commandID: String? = nil, reply: JSON? = nil) -> AppendUnit
    {
        var events: [EventRecord] = []
        for index in 0..<count {
            seq += 1
            let revision = (revisions[navigator] ?? 0) + 1
            revisions[navigator] = revision
            events.append(
                EventRecord(
                    seq: seq, navigator: navigator, revision: revision, type: "transition.started", version: 1,
                    frame: 1000 + seq, time: 1_700_000_000_000_000_000 + seq, command: commandID,
                    data: ["transition": .int(revision), "index": .int(Int64(index)), "note": "ü \"q\"\n"]))
        }
        return AppendUnit(events: events, commandID: commandID, navigator: navigator, reply: reply)
    }
}

/// Checks the invariants every log must keep: seq gapless from 1, revisions gapless per navigator.
func checkGapless(_ events: [EventRecord]) -> String? {
    var checker = GaplessChecker()
    return checker.check(events)
}

/// The gapless check, resumable: feed it the log in pieces.
struct GaplessChecker {
    private(set) var seq: Int64 = 0
    private var revisions: [String: Int64] = [:]

    /// The first violation in `events`, which must continue what was checked before; nil if none.
    mutating func check(_ events: [EventRecord]) -> String? {
        for event in events {
            if event.seq != seq + 1 { return "seq \(event.seq) follows \(seq)" }
            let expected = (revisions[event.navigator] ?? 0) + 1
            if event.revision != expected {
                return "\(event.navigator) revision \(event.revision), expected \(expected)"
            }
            revisions[event.navigator] = event.revision
            seq = event.seq
        }
        return nil
    }
}
