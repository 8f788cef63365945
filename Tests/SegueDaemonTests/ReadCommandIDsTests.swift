import Foundation
import SegueCore
import SegueStore
import Synchronization
import Testing

@testable import SegueDaemon

/// `Engine.readCommandIDs`: one walk over the stored ids, no count first; a filter sized for exactly
/// the ids it found, or none past `maxIDs` (the engine then looks every id up).
@Suite struct ReadCommandIDsTests {
    /// A store with `count` command ids, one event each.
    static func store(_ directory: TemporaryDirectory, ids count: Int) throws -> EventStore {
        let store = try EventStore(path: directory.path + "/segue.db", durability: .relaxed)
        for index in 0..<count {
            let seq = Int64(index + 1)
            let event = EventRecord(
                seq: seq, navigator: "r", revision: seq, type: "transition.started", version: 1, frame: seq,
                time: seq, command: "id-\(index)", data: ["transition": .int(seq)])
            try store.append(AppendUnit(events: [event], commandID: "id-\(index)", navigator: "r", reply: ["ok": true]))
        }
        return store
    }

    /// (stored ids, maxIDs, ids in the filter or nil for none, whether the "too many" notice is logged)
    @Test(arguments: [
        (0, 4, 0 as Int?, false), (3, 4, 3, false), (4, 4, 4, false), (5, 4, nil, true), (9, 4, nil, true),
    ])
    func aFilterOfExactlyTheStoredIdsOrNone(stored: Int, maxIDs: Int, filtered: Int?, noticed: Bool) throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(directory, ids: stored)
        let logged = Mutex<[String]>([])
        let logger = Logger(
            label: "segued", handler: LogHandler(writingLinesTo: { line in logged.withLock { $0.append(line) } }))
        let filter = Engine.readCommandIDs(store, maxIDs: maxIDs, logger: logger, stopping: { false })
        #expect(filter?.count == filtered)
        #expect(filter?.capacity == filtered.map { _ in CommandIDFilter.minimumCapacity })
        for index in 0..<stored where filter != nil {
            #expect(filter?.mightContain(CommandIDFilter.hash("id-\(index)")) == true, "id-\(index)")
        }
        #expect(logged.withLock { $0.map { $0.prefix(3) } } == (noticed ? ["<5>"] : []))
    }

    /// The walk asks whether the engine is stopping every 4,096 ids; a stopped engine gets no filter.
    @Test func aStoppingEngineGetsNoFilter() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(directory, ids: 4097)
        var asked = 0
        let filter = Engine.readCommandIDs(
            store, maxIDs: 1 << 20, logger: .discarding,
            stopping: {
                asked += 1
                return true
            })
        #expect(filter == nil && asked == 1)
    }
}
