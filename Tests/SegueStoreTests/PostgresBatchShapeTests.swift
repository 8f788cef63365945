import Foundation
import SegueCore
import Synchronization
import Testing

@testable import SeguePostgres
@testable import SegueStore

/// A PostgreSQL batch inserts its rows as `VALUES` with scalar parameters while it is small and
/// through one array per column beyond that: every shape must store exactly what SQLite stores for
/// the same units (events, command ids, replies, fingerprints, NULLs).
@Suite struct PostgresBatchShapeTests {
    /// (events, of which carry a command id): small shapes, the edges of `SmallRows`, and beyond.
    static let shapes: [(events: Int, commands: Int)] = [
        (1, 0), (1, 1), (2, 1), (2, 2), (4, 0), (4, 4), (5, 1), (5, 5), (9, 3),
    ]

    @Test(arguments: shapes)
    func everyShapeStoresWhatSQLiteStores(events: Int, commands: Int) throws {
        let units = Self.units(events: events, commands: commands)
        let sqlitePlace = try LogPlace(.sqlite)
        let sqlite = try sqlitePlace.open()
        defer { sqlite.close() }
        for unit in units { try sqlite.append(unit) }

        let place = try LogPlace(.postgres)
        let postgres = try PostgresEventStore(conninfo: place.conninfo!)
        defer { postgres.close() }
        // One batch, as the daemon's group commit makes it.
        let results = try postgres.withWriter { writer in writer.commit(units[...]) }
        for result in results { try result.get() }

        #expect(try postgres.allEvents() == sqlite.allEvents())
        for unit in units {
            guard let id = unit.commandID else { continue }
            #expect(try postgres.command(id) == sqlite.command(id), "command \(id)")
        }
        #expect(postgres.lastSeq == Int64(events))
    }

    /// A batch's remains (parameters, results, plan) are freed after its completions, not between the
    /// commit and them: by the daemon's upkeep after an inline commit's replies, by the committer
    /// thread after its own batches' completions, and at the latest before the next commit.
    @Test func aCommitsRemainsAreFreedAfterItsCompletions() throws {
        let units = Self.units(events: 4, commands: 1)
        let place = try LogPlace(.postgres)
        let store = try PostgresEventStore(conninfo: place.conninfo!)
        defer { store.close() }
        let writer = store.committer.writer
        for result in try #require(store.commitIfIdle(Array(units[0..<2]))) { try result.get() }
        #expect(writer.upkeepDue)
        #expect(writer.retired.rows.count == 1 && writer.retired.plan != nil)
        store.checkpointIfDue()
        #expect(!writer.upkeepDue)
        #expect(writer.retired.rows.isEmpty && writer.retired.steps.isEmpty && writer.retired.plan == nil)

        for result in try #require(store.commitIfIdle([units[2]])) { try result.get() }
        #expect(writer.upkeepDue)
        let stored = Mutex<Result<Void, StoreError>?>(nil)
        store.submit(units[3]) { result in stored.withLock { $0 = result } }
        store.flush()
        try #require(stored.withLock { $0 }).get()
        #expect(!writer.upkeepDue, "the committer thread freed both batches' remains")
        #expect(store.lastSeq == 4)
    }

    /// `events` one-event units on two navigators; the first `commands` carry an id, a reply (one of
    /// them none) and a fingerprint (one of them none); odd ones bring their wire bodies, as the
    /// daemon's do, the others have theirs serialized by the store.
    static func units(events: Int, commands: Int) -> [AppendUnit] {
        var numberer = Numberer()
        return (0..<events).map { index in
            let navigator = "n\(index % 2)"
            let plain = numberer.unit(navigator, commandID: index < commands ? "id-\(index)-ü" : nil)
            return AppendUnit(
                events: plain.events, commandID: plain.commandID, navigator: navigator,
                reply: index < commands && index != 1 ? ["ok": true, "index": .int(Int64(index))] : nil,
                fingerprint: index < commands && index != 2 ? UInt64.max - UInt64(index) : nil,
                encoded: index % 2 == 1 ? plain.events.map { $0.encodedWithData() } : nil)
        }
    }
}
