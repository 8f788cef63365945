import Foundation
import SegueCore
import Testing

@testable import SegueStore

/// The stored command ids as `segue migrate` copies them: read whole, imported with the events in
/// one transaction, and stored again as they were.
@Suite struct CommandRecordTests {
    @Test(arguments: JSONLinesTests.copies)
    func importWithCommandsStoresEveryRowAsItWas(from: Backend, to: Backend) throws {
        let place = try LogPlace(from)
        var numberer = Numberer()
        let source = try place.open()
        for round in 0..<12 {
            var unit = numberer.unit(
                round % 2 == 0 ? "main" : "side", count: 1 + round % 3,
                commandID: round % 4 == 3 ? nil : "c\(round)", reply: ["ok": true, "round": .int(Int64(round))])
            unit.fingerprint = round % 5 == 0 ? nil : UInt64.max - UInt64(round)
            try source.append(unit)
        }
        // A command that appended nothing: its row has no seq.
        try source.append(AppendUnit(events: [], commandID: "empty", navigator: "main", reply: ["ok": true]))
        try source.append(numberer.unit("main"))  // a clock-decided event after the last command
        let file = place.directory.file("log.jsonl")
        try source.exportJSONLines(to: file)
        let commands = try source.commandRecords()
        #expect(commands.count == 10)
        #expect(commands.map(\.id) == commands.map(\.id).sorted { Array($0.utf8).lexicographicallyPrecedes($1.utf8) })
        #expect(commands.first { $0.id == "empty" }?.seq == nil)

        let target = try LogPlace(to)
        let copy = try target.open()
        #expect(try copy.importJSONLines(from: file, commands: commands) == Int(numberer.seq))
        #expect(try copy.commandRecords() == commands)
        #expect(try copy.allEvents() == source.allEvents())
        #expect(try copy.command("c4") == source.command("c4"))
    }

    /// More ids than one statement's arrays take (`PostgresBatch.rowsPerStatement`, 4096): they go in
    /// several, in the one transaction.
    @Test(arguments: Backend.allCases)
    func manyCommandsImportWhole(backend: Backend) throws {
        let place = try LogPlace(backend)
        var numberer = Numberer()
        var lines: [String] = []
        var commands: [CommandRecord] = []
        for round in 0..<5000 {
            let unit = numberer.unit("n\(round % 7)", commandID: "id-\(round)")
            lines += unit.events.map { $0.json.serialized() }
            commands.append(
                CommandRecord(
                    id: "id-\(round)", navigator: unit.navigator, seq: unit.events.last?.seq,
                    reply: ["ok": true, "round": .int(Int64(round))], fingerprint: UInt64(round)))
        }
        let file = place.directory.file("many.jsonl")
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: false, encoding: .utf8)
        let store = try place.open()
        #expect(try store.importJSONLines(from: file, commands: commands) == 5000)
        let sorted = commands.sorted { Array($0.id.utf8).lexicographicallyPrecedes($1.id.utf8) }
        #expect(try store.commandRecords() == sorted)
    }

    static func event(_ seq: Int64) -> EventRecord {
        EventRecord(
            seq: seq, navigator: "m", revision: seq, type: "screen.pushed", version: 1, frame: 0, time: 0,
            command: nil, data: [:])
    }

    static func command(_ id: String, _ seq: Int64?) -> CommandRecord {
        CommandRecord(id: id, navigator: "m", seq: seq, reply: ["ok": true], fingerprint: nil)
    }

    /// Each row: how many events of navigator "m" the file holds, the commands imported with them, and
    /// the refusal's words (nil: stored as given).
    static let commandSets: [(events: Int, commands: [CommandRecord], refusal: String?)] = [
        (4, [], nil),
        (4, [command("a", 2)], nil),
        (4, [command("b", 4), command("a", 1)], nil),
        (4, [command("z", nil), command("a", 4)], nil),
        (4, [command("a", 2), command("b", 2)], "both end at seq 2"),
        (4, [command("a", 9)], "ends at seq 9, which is not an event of the log"),
        (4, [command("a", 0)], "ends at seq 0, which is not an event of the log"),
        (0, [command("z", nil)], nil),
        (0, [command("a", 1)], "ends at seq 1, which is not an event of the log"),
        (4, [command("a", 2), command("a", nil)], "appears twice, or the log holds it already"),
    ]

    @Test(arguments: Backend.allCases, commandSets)
    func importStoresCommandsAsGivenOrNothing(
        backend: Backend, set: (events: Int, commands: [CommandRecord], refusal: String?)
    ) throws {
        let place = try LogPlace(backend)
        let file = place.directory.file("log.jsonl")
        var numberer = Numberer()
        let text = (0..<set.events).map { _ in StoreJSON.encode(numberer.unit("m").events[0].json) + "\n" }.joined()
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let store = try place.open()
        let outcome = Result { () throws(StoreError) -> Int in
            try store.importJSONLines(from: file, commands: set.commands)
        }
        switch outcome {
        case .success(let count):
            #expect(count == set.events && set.refusal == nil)
            #expect(try store.commandRecords() == set.commands.commandRecords())
        case .failure(let error):
            let refused = set.refusal.map { error.message.contains($0) } ?? false
            #expect(refused, "\(error.message)")
            #expect(store.lastSeq == 0, "no event kept")
            #expect(try store.commandRecords().isEmpty, "no command kept")
        }
    }
}
