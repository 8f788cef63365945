import Foundation
import SegueCore
import Testing

@testable import SegueStore

/// `EventStore.commandIDs()`: every stored id once, as its bytes, page by page on its own connection.
@Suite struct CommandIDReaderTests {
    static let ids = ["a", "b", "ü", "e\u{301}", "\u{e9}", "nul\u{0}inside", "z", "", "space id", "A"]

    static func store(_ place: LogPlace, ids: [String]) throws -> any EventStoring {
        let store = try place.open()
        var numberer = Numberer()
        for id in ids { try store.append(numberer.unit("main", commandID: id, reply: ["ok": true])) }
        return store
    }

    static func read(_ reader: some CommandIDWalking, pageSize: Int) throws -> [[UInt8]] {
        var seen: [[UInt8]] = []
        try reader.walk(pageSize: pageSize) { bytes in
            seen.append(Array(bytes))
            return true
        }
        return seen
    }

    /// Page sizes around the count: one page, exact pages, a last short page, one id per page.
    @Test(arguments: Backend.allCases, [1, 3, 5, 10, 11, 4096])
    func everyIdOnceInKeyOrder(backend: Backend, pageSize: Int) throws {
        let place = try LogPlace(backend)
        let store = try Self.store(place, ids: Self.ids)
        let reader = try store.commandIDs()
        let seen = try Self.read(reader, pageSize: pageSize)
        #expect(seen == Self.ids.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) })
    }

    @Test(arguments: Backend.allCases)
    func anEmptyStoreHasNoIds(backend: Backend) throws {
        let place = try LogPlace(backend)
        let store = try Self.store(place, ids: [])
        let reader = try store.commandIDs()
        #expect(try Self.read(reader, pageSize: 2).isEmpty)
    }

    /// The store converts its `busyTimeout` to SQLite's milliseconds once (rounding down, clamped),
    /// and its connections, the id reader's included, are opened with that value.
    @Test(arguments: [
        (Duration.seconds(2), Int32(2000)), (.milliseconds(250), 250), (.microseconds(1500), 1), (.zero, 0),
        (.seconds(Int64.max / 1000), Int32.max),
    ])
    func theBusyTimeoutIsConvertedOnce(busyTimeout: Duration, milliseconds: Int32) throws {
        let directory = TemporaryDirectory()
        let store = try EventStore(path: directory.file("events.db"), busyTimeout: busyTimeout)
        #expect(store.busyTimeoutMilliseconds == milliseconds)
        #expect(try Self.read(try store.commandIDs(), pageSize: 1).isEmpty)
    }

    @Test(arguments: Backend.allCases)
    func theWalkStopsWhenAsked(backend: Backend) throws {
        let place = try LogPlace(backend)
        let store = try Self.store(place, ids: Self.ids)
        var seen = 0
        let finished = try store.commandIDs().walk(pageSize: 2) { _ in
            seen += 1
            return seen < 3
        }
        #expect(!finished && seen == 3)
    }

    /// Ids stored while the walk is under way may or may not be seen (the engine notes its own), but
    /// every id stored before it began is, once.
    @Test(arguments: Backend.allCases)
    func idsStoredDuringTheWalkDoNotHideEarlierOnes(backend: Backend) throws {
        let place = try LogPlace(backend)
        let store = try place.open()
        var numberer = Numberer()
        let before = (0..<50).map { String(format: "m%03d", $0 * 2) }
        for id in before { try store.append(numberer.unit("main", commandID: id, reply: ["ok": true])) }
        var seen: [String] = []
        var added = 0
        try store.commandIDs().walk(pageSize: 7) { bytes in
            seen.append(String(decoding: bytes, as: UTF8.self))
            if added < 20 {
                for id in ["a\(added)", "m\(String(format: "%03d", added * 5 + 1))", "z\(added)"] {
                    try? store.append(numberer.unit("main", commandID: id, reply: ["ok": true]))
                }
                added += 1
            }
            return true
        }
        #expect(before.allSatisfy { id in seen.filter { $0 == id }.count == 1 })
        #expect(Set(seen).count == seen.count, "no id twice")
    }
}
