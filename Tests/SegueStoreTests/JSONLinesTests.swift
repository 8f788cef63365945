import Foundation
import SegueCore
import Testing

@testable import SegueStore

@Suite struct JSONLinesTests {
    /// Each row: the backend exported from, the backend imported into.
    static let copies: [(from: Backend, to: Backend)] = [
        (.sqlite, .sqlite), (.sqlite, .postgres), (.postgres, .sqlite), (.postgres, .postgres),
    ]

    @Test(arguments: copies)
    func exportImportExportIsByteIdentical(from: Backend, to: Backend) throws {
        let place = try LogPlace(from)
        let directory = place.directory
        var numberer = Numberer()
        let source = try place.open()
        for round in 0..<20 {
            try source.append(
                numberer.unit(round % 3 == 0 ? "side" : "main", count: 1 + round % 4, commandID: "c\(round)"))
        }
        try source.append(numberer.unit("main"))  // a clock-decided event: command null
        #expect(try source.exportJSONLines(to: directory.file("a.jsonl")) == Int(numberer.seq))

        let target = try LogPlace(to)
        let copy = try target.open()
        #expect(try copy.importJSONLines(from: directory.file("a.jsonl")) == Int(numberer.seq))
        try copy.exportJSONLines(to: directory.file("b.jsonl"))

        let first = try Data(contentsOf: URL(fileURLWithPath: directory.file("a.jsonl")))
        let second = try Data(contentsOf: URL(fileURLWithPath: directory.file("b.jsonl")))
        #expect(first == second)
        #expect(try copy.allEvents() == source.allEvents())
        #expect(copy.lastSeq == numberer.seq)
    }

    @Test(arguments: Backend.allCases)
    func importContinuesAnExistingLog(backend: Backend) throws {
        let place = try LogPlace(backend)
        let directory = place.directory
        var numberer = Numberer()
        let store = try place.open()
        try store.append(numberer.unit("main", count: 2))
        let tail = numberer.unit("main", count: 2).events
        let text = tail.map { StoreJSON.encode($0.json) + "\n" }.joined()
        try text.write(toFile: directory.file("tail.jsonl"), atomically: true, encoding: .utf8)
        #expect(try store.importJSONLines(from: directory.file("tail.jsonl")) == 2)
        #expect(checkGapless(try store.allEvents()) == nil)
        #expect(store.lastSeq == 4)
    }

    static func line(_ seq: Int64, _ navigator: String, _ revision: Int64) -> String {
        StoreJSON.encode(
            EventRecord(
                seq: seq, navigator: navigator, revision: revision, type: "navigator.created", frame: 1, time: 2,
                command: nil, data: [:]
            ).json)
    }

    /// Each row: the file's lines, the line number the import must blame.
    static let badFiles: [(lines: [String], line: Int)] = [
        ([line(2, "a", 1)], 1),  // does not start at seq 1
        ([line(1, "a", 1), line(3, "a", 2)], 2),  // seq gap
        ([line(1, "a", 1), line(2, "a", 1)], 2),  // revision repeat
        ([line(1, "a", 1), line(2, "b", 2)], 2),  // b starts at revision 2
        ([line(1, "a", 1), line(2, "a", 2), "{\"seq\": 3"], 3),  // not JSON
        ([line(1, "a", 1), "{\"seq\": 2}"], 2),  // not an event
        ([line(1, "a", 1), "", line(2, "a", 2)], 2),  // blank line
        ([line(1, "a", 1), "not json", line(2, "a", 2)], 2),  // not an object at all
    ]

    @Test(arguments: Backend.allCases, badFiles)
    func importRejectsABrokenFileWithTheLineAtFaultAndStoresNothing(
        backend: Backend, file: (lines: [String], line: Int)
    ) throws {
        let (lines, line) = (file.lines, file.line)
        let place = try LogPlace(backend)
        let directory = place.directory
        try (lines.joined(separator: "\n") + "\n").write(
            toFile: directory.file("bad.jsonl"), atomically: true, encoding: .utf8)
        let store = try place.open()
        do {
            try store.importJSONLines(from: directory.file("bad.jsonl"))
            Issue.record("a broken file was imported")
        } catch {
            #expect(error.line == line)
            if lines.last == "{\"seq\": 3" {
                #expect(
                    error.message
                        == "Line 3, column 10: not valid JSON: unexpected end of input: expected ',' or '}' after an "
                        + "object member.")
            }
            if lines.contains("not json") {
                #expect(
                    error.message
                        == #"Line 2 is not an event: an export holds one JSON object per line, and this one starts "not json"."#
                )
            }
        }
        #expect(store.lastSeq == 0)
        #expect(try store.allEvents().isEmpty)
    }

    /// Import stores what it reads, so a member this build does not know (a file from a newer segue)
    /// is refused, not dropped: each row puts one on line 2, at the top or among the known ones.
    static let newerLines: [(line: String, member: String)] = [
        (line(2, "a", 2).replacingOccurrences(of: #""data":{}"#, with: #""data":{},"shard":"x""#), "shard"),
        (line(2, "a", 2).replacingOccurrences(of: #""frame":"#, with: #""lease":{"n":1},"frame":"#), "lease"),
    ]

    @Test(arguments: newerLines)
    func importRefusesAMemberItDoesNotKnowAndAsksWhetherANewerSegueWroteIt(line: String, member: String) throws {
        let place = try LogPlace(.sqlite)
        let directory = place.directory
        try ([Self.line(1, "a", 1), line].joined(separator: "\n") + "\n").write(
            toFile: directory.file("newer.jsonl"), atomically: true, encoding: .utf8)
        let store = try place.open()
        do {
            try store.importJSONLines(from: directory.file("newer.jsonl"))
            Issue.record("a file with an unknown member was imported")
        } catch {
            #expect(error.line == 2)
            #expect(
                error.message
                    == "Line 2 (seq 2): Event member \"\(member)\" is not part of the event format; was it exported by "
                    + "a newer segue?")
        }
        #expect(store.lastSeq == 0)
    }
}
