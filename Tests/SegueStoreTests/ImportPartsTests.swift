import Foundation
import SegueCore
import Testing

@testable import SeguePostgres
@testable import SegueStore

/// An import longer than a part (`LogImport.eventsPerPart`): written part after part in one
/// transaction, so a fault in a late part keeps nothing of the earlier ones, and command ids whose
/// units span parts are stored as they were.
@Suite struct ImportPartsTests {
    /// 2.5 parts of events over three navigators, a command id on every 997th unit (so units without
    /// an id between them are cut at `LogImport.unitLimit`), and one command that appended nothing.
    static func log(_ place: LogPlace) throws -> (store: any EventStoring, file: String, commands: [CommandRecord]) {
        var numberer = Numberer()
        let source = try place.open()
        let total = LogImport.eventsPerPart * 5 / 2
        var units: [AppendUnit] = []
        for index in 0..<total {
            let id = index % 997 == 996 ? "c\(index)" : nil
            units.append(
                numberer.unit(["a", "b", "c"][index % 3], commandID: id, reply: id.map { ["ok": .string($0)] }))
        }
        units.append(AppendUnit(events: [], commandID: "empty", navigator: "a", reply: ["ok": true]))
        for start in stride(from: 0, to: units.count, by: 1000) {
            try Self.commit(Array(units[start..<min(start + 1000, units.count)]), to: source)
        }
        let file = place.directory.file("log.jsonl")
        #expect(try source.exportJSONLines(to: file) == total)
        return (source, file, try source.commandRecords())
    }

    @Test(arguments: JSONLinesTests.copies)
    func aLongImportIsStoredAsItWasRead(from: Backend, to: Backend) throws {
        let place = try LogPlace(from)
        let (source, file, commands) = try Self.log(place)
        #expect(commands.count == 11)
        let target = try LogPlace(to)
        let copy = try target.open()
        var reported: [Int] = []
        #expect(try copy.importJSONLines(from: file, commands: commands) { reported.append($0) } == Int(source.lastSeq))
        #expect(reported.count >= 2 && reported == reported.sorted(), "progress after each part: \(reported)")
        #expect(try copy.allEvents() == source.allEvents())
        #expect(try copy.commandRecords() == commands)
        withExtendedLifetime((place, target)) {}
    }

    @Test(arguments: Backend.allCases)
    func aFaultInALatePartKeepsNothing(backend: Backend) throws {
        let place = try LogPlace(backend)
        let (source, file, _) = try Self.log(place)
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        let broken = lines.count - 10
        let text = lines.enumerated().map { $0.offset == broken ? "{\"seq\": 1}" : String($0.element) }
        try (text.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)

        let target = try LogPlace(backend)
        let copy = try target.open()
        do {
            try copy.importJSONLines(from: file)
            Issue.record("a file broken at line \(broken + 1) was imported")
        } catch {
            #expect(error.line == broken + 1, "\(error)")
        }
        #expect(copy.lastSeq == 0)
        #expect(try copy.allEvents().isEmpty)
        // The writer goes on from the log's real end.
        var numberer = Numberer()
        try copy.append(numberer.unit("a"))
        #expect(copy.lastSeq == 1)
        #expect(source.lastSeq > 1)
        withExtendedLifetime((place, target)) {}
    }

    /// The writer's connection cut after the first part (the server rolls that part back): the import
    /// fails `unavailable` and the log holds nothing. The second part brings navigators the first did
    /// not, so their revisions are looked up after the cut; every step of an import stays on the
    /// session that began it, so none can run on a new connection, where it would commit on its own.
    @Test func aConnectionLostBetweenPartsKeepsNothing() throws {
        let place = try LogPlace(.postgres)
        let store = try PostgresEventStore(conninfo: place.conninfo!, durability: .full)
        var numberer = Numberer()
        var text = ""
        for index in 0..<(LogImport.eventsPerPart * 2) {
            let navigator = index < LogImport.eventsPerPart ? ["a", "b", "c"][index % 3] : "d\(index % 5)"
            text += StoreJSON.encode(numberer.unit(navigator).events[0].json) + "\n"
        }
        let file = place.directory.file("log.jsonl")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let pid = try PostgresFaultTests.writerPID(store)
        let admin = try PostgresSchemaTests.admin(place)
        var cut = false
        let outcome = Result { () throws(StoreError) -> Int in
            try store.importJSONLines(from: file, commands: [CommandRecord]()) { _ in
                guard !cut else { return }
                cut = true
                var parameters = PostgresParameters()
                parameters.append(pid)
                _ = try? admin.query("SELECT pg_terminate_backend($1, 5000)", parameters)
                usleep(200_000)
            }
        }
        #expect(cut, "the first part was appended")
        #expect(outcome.failure?.code == .unavailable, "\(outcome)")
        #expect(try store.allEvents().isEmpty, "nothing kept")
        #expect(store.lastSeq == 0)
    }

    /// Commits `units` in one transaction (the store is idle: nothing else writes in these tests).
    static func commit(_ units: [AppendUnit], to store: any EventStoring) throws {
        let results = try #require(store.commitIfIdle(units), "the writer is idle")
        for result in results { try result.get() }
    }
}
