import Foundation
import SegueCore
import Testing

@testable import SegueStore

/// Schema version 3 drops the `events_command` index, which no query used: logs of versions 1 and 2
/// migrate in place and keep everything else; the read-only `EventLog` leaves them as they were; a
/// command's events are still found through the `commands` key and `seq`.
@Suite struct SchemaVersion3Tests {
    static func indexes(_ path: String) throws -> [String] {
        let database = try Database(path: path)
        let statement = try database.prepare(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events' AND sql IS NOT NULL "
                + "ORDER BY name")
        var names: [String] = []
        while try statement.step() { names.append(statement.text(at: 0) ?? "") }
        return names
    }

    /// A file at `version` as that version's segued left it: its migrations, one command and its event.
    static func makeOldLog(_ path: String, version: Int) throws {
        let database = try Database(path: path)
        _ = try database.scalarText("PRAGMA journal_mode = WAL")
        for migration in Schema.migrations.prefix(version) { try database.execute(migration) }
        try database.execute("PRAGMA user_version = \(version)")
        try database.execute(
            "INSERT INTO events (seq, navigator, revision, type, version, frame, time, command, data) "
                + "VALUES (1, 'main', 1, 'navigator.created', 1, 0, 0, 'old', '{}')")
        try database.execute(
            #"INSERT INTO commands (id, navigator, seq, reply) VALUES ('old', 'main', 1, '{"ok":true}')"#)
    }

    @Test func aNewLogHasNoCommandIndex() throws {
        let directory = TemporaryDirectory()
        _ = try EventStore(path: directory.file("events.db"))
        #expect(try Self.indexes(directory.file("events.db")) == ["events_navigator_revision"])
    }

    @Test(arguments: [1, 2])
    func anOlderLogMigratesAndKeepsItsEventsAndCommands(version: Int) throws {
        let directory = TemporaryDirectory()
        let path = directory.file("events.db")
        try Self.makeOldLog(path, version: version)
        #expect(try Self.indexes(path) == ["events_command", "events_navigator_revision"])
        let store = try EventStore(path: path)
        #expect(try store.command("old") == StoredCommand(reply: ["ok": true], fingerprint: nil))
        var numberer = Numberer(seq: 1, revisions: ["main": 1])
        try store.append(numberer.unit("main", count: 2, commandID: "new", reply: ["ok": true]))
        #expect(try store.allEvents().map(\.command) == ["old", "new", "new"])
        store.close()
        #expect(try Database(path: path).scalarInt("PRAGMA user_version") == Schema.currentVersion)
        #expect(try Self.indexes(path) == ["events_navigator_revision"])
        #expect(try EventLog(path: path).integrityCheck().isEmpty)
    }

    /// `segue export`, `verify` and `replay` read through `EventLog`, which never migrates: a version-2
    /// file keeps its version and its index, so the segued that wrote it can still open it.
    @Test func theReadOnlyLogLeavesAVersionTwoFileAsItWas() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("events.db")
        try Self.makeOldLog(path, version: 2)
        let log = try EventLog(path: path)
        #expect(log.schemaVersion == 2)
        var commands: [String?] = []
        try log.forEachEvent { commands.append($0.command) }
        #expect(commands == ["old"])
        #expect(try Database(path: path).scalarInt("PRAGMA user_version") == 2)
        #expect(try Self.indexes(path) == ["events_command", "events_navigator_revision"])
    }

    /// The operator's query (docs/operations.md, "Finding a command's events"): the command's row
    /// gives the seq of its last event, and its events are the run ending there that carries its id.
    /// The run is only the events of the command's first decision: a queued command's start comes
    /// later (`aQueuedCommandsLaterEventsFollowItsRow`).
    static let commandEvents = """
        WITH RECURSIVE run(seq) AS (
            SELECT seq FROM commands WHERE id = ?1
            UNION ALL
            SELECT run.seq - 1 FROM run JOIN events e ON e.seq = run.seq - 1 WHERE e.command = ?1
        )
        SELECT e.seq FROM run JOIN events e ON e.seq = run.seq ORDER BY e.seq
        """

    @Test func aCommandsEventsAreFoundThroughItsRowWithoutScanningTheLog() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("events.db")
        let store = try EventStore(path: path)
        var numberer = Numberer()
        try store.append(numberer.unit("a", count: 2, commandID: "first", reply: ["ok": true]))
        try store.append(numberer.unit("b", count: 3, commandID: "second", reply: ["ok": true]))
        try store.append(numberer.unit("a", count: 1))
        try store.append(numberer.unit("a", count: 1, commandID: "third", reply: ["ok": true]))
        store.close()
        let database = try Database(path: path)
        func seqs(_ id: String) throws -> [Int64] {
            let statement = try database.prepare(Self.commandEvents)
            statement.bind(id, at: 1)
            var seqs: [Int64] = []
            while try statement.step() { seqs.append(statement.int64(at: 0)) }
            return seqs
        }
        #expect(try seqs("first") == [1, 2])
        #expect(try seqs("second") == [3, 4, 5])
        #expect(try seqs("third") == [7])
        #expect(try seqs("never") == [])
        let plan = try database.prepare("EXPLAIN QUERY PLAN " + Self.commandEvents)
        var steps: [String] = []
        while try plan.step() { steps.append(plan.text(at: 3) ?? "") }
        #expect(!steps.contains { $0.hasPrefix("SCAN e") || $0 == "SCAN events" }, "\(steps)")
        #expect(steps.contains { $0.contains("SEARCH e USING INTEGER PRIMARY KEY") }, "\(steps)")
    }

    /// The operator's second query: a command queued under `busy: "queue"` stores its row with its
    /// `transition.queued`; its start (or drop), decided when its turn comes, carries its id at a later
    /// seq, after other events. The run finds only the first; the events after the row's seq that
    /// carry the id are the rest, found by a range on `seq` rather than a scan of the whole log.
    static let laterEvents = """
        SELECT e.seq FROM commands c JOIN events e ON e.seq > c.seq AND e.command = c.id
        WHERE c.id = ?1 ORDER BY e.seq
        """

    @Test func aQueuedCommandsLaterEventsFollowItsRow() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("events.db")
        let store = try EventStore(path: path)
        var numberer = Numberer()
        try store.append(numberer.unit("a", count: 2, commandID: "first", reply: ["ok": true]))
        try store.append(numberer.unit("a", count: 1, commandID: "queued", reply: ["ok": true, "queued": 1]))
        try store.append(numberer.unit("b", count: 2, commandID: "other", reply: ["ok": true]))
        try store.append(numberer.unit("a", count: 1))
        var start = numberer.unit("a", count: 2, commandID: "queued")
        start.commandID = nil
        try store.append(start)
        try store.append(numberer.unit("a", count: 1, commandID: "last", reply: ["ok": true]))
        store.close()
        let database = try Database(path: path)
        func seqs(_ sql: String, _ id: String) throws -> [Int64] {
            let statement = try database.prepare(sql)
            statement.bind(id, at: 1)
            var seqs: [Int64] = []
            while try statement.step() { seqs.append(statement.int64(at: 0)) }
            return seqs
        }
        #expect(try seqs(Self.commandEvents, "queued") == [3], "the run: its first decision only")
        #expect(try seqs(Self.laterEvents, "queued") == [7, 8], "its start, when its turn came")
        #expect(try seqs(Self.laterEvents, "first") == [])
        let plan = try database.prepare("EXPLAIN QUERY PLAN " + Self.laterEvents)
        var steps: [String] = []
        while try plan.step() { steps.append(plan.text(at: 3) ?? "") }
        #expect(steps.contains { $0.contains("SEARCH e USING INTEGER PRIMARY KEY (rowid>?)") }, "\(steps)")
    }
}
