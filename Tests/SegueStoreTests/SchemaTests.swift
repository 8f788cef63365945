import Foundation
import SegueCore
import Synchronization
import Testing

@testable import SegueStore

@Suite struct SchemaTests {
    @Test(arguments: [
        "UPDATE events SET type = 'x' WHERE seq = 1",
        "DELETE FROM events WHERE seq = 1",
        "DELETE FROM events",
    ])
    func theSchemaRefusesToChangeOrRemoveEvents(sql: String) throws {
        let directory = TemporaryDirectory()
        var numberer = Numberer()
        do {
            let store = try EventStore(path: directory.file("events.db"))
            try store.append(numberer.unit("main", count: 2))
        }
        let database = try Database(path: directory.file("events.db"))
        do {
            try database.execute(sql)
            Issue.record("\(sql) succeeded")
        } catch {
            #expect(error.message == "events are append-only")
            #expect(error.sql == sql)
            #expect(error.primaryCode == 19)  // SQLITE_CONSTRAINT
        }
        #expect(try database.scalarInt("SELECT COUNT(*) FROM events") == 2)
    }

    /// A row whose JSON was damaged outside segued (the guard dropped, the text changed) is named by
    /// its seq, so an operator knows which event to repair or restore.
    @Test(arguments: [
        ("UPDATE events SET data = '{\"root\":' WHERE seq = 2", "Event 2: Stored text is not valid JSON"),
        (
            "UPDATE snapshots SET state = 'x' WHERE seq = 3",
            "The snapshot of main at seq 3: Stored text is not valid JSON"
        ),
    ])
    func aDamagedRowIsNamed(sql: String, message: String) throws {
        let directory = TemporaryDirectory()
        var numberer = Numberer()
        do {
            let store = try EventStore(path: directory.file("events.db"))
            try store.append(numberer.unit("main", count: 3))
            try store.saveSnapshot(navigator: "main", seq: 3, revision: 3, state: ["stack": []])
        }
        try Database(path: directory.file("events.db")).execute("DROP TRIGGER events_no_update; \(sql)")
        let store = try EventStore(path: directory.file("events.db"))
        let error = #expect(throws: StoreError.self) {
            _ = try store.events(after: 0)
            _ = try store.latestSnapshots()
        }
        #expect(error?.message.hasPrefix(message) == true, "\(String(describing: error))")
    }

    /// Another program's database where the log should be is refused, and left as it was (no WAL mode,
    /// no tables added); an empty file becomes a log.
    @Test func anotherProgramsDatabaseIsRefusedAndLeftAlone() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("events.db")
        try Database(path: path).execute("CREATE TABLE foo (x); CREATE TABLE events (y)")
        #expect(FileManager.default.createFile(atPath: directory.file("empty.db"), contents: nil))
        let error = #expect(throws: StoreError.self) { try EventStore(path: path) }
        #expect(
            error?.message
                == "\(path) is another program's SQLite database (tables: events, foo), not a Segue log; segued adds "
                + "its tables to no other database. Give --data-dir a directory of its own.")
        let database = try Database(path: path)
        #expect(try database.scalarText("PRAGMA journal_mode") == "delete")
        #expect(try database.scalarInt("SELECT COUNT(*) FROM sqlite_master") == 2)
        _ = try EventStore(path: directory.file("empty.db"))
    }

    @Test func openRecordsTheSchemaVersionAndRefusesANewerFile() throws {
        let directory = TemporaryDirectory()
        _ = try EventStore(path: directory.file("events.db"))
        let database = try Database(path: directory.file("events.db"))
        #expect(try database.scalarInt("PRAGMA user_version") == Schema.currentVersion)
        #expect(try database.scalarText("PRAGMA journal_mode") == "wal")
        try database.execute("PRAGMA user_version = 99")
        #expect(throws: StoreError.self) { try EventStore(path: directory.file("events.db")) }
    }

    /// A log written by schema version 1 (no request fingerprints) opens, migrates to the current
    /// version in place, and keeps its events and stored replies; its old commands have no fingerprint.
    @Test func aVersionOneLogMigratesAndKeepsItsCommands() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("events.db")
        do {
            let database = try Database(path: path)
            _ = try database.scalarText("PRAGMA journal_mode = WAL")
            try database.execute(Schema.migrations[0])
            try database.execute("PRAGMA user_version = 1")
            try database.execute(
                "INSERT INTO events (seq, navigator, revision, type, version, frame, time, command, data) "
                    + "VALUES (1, 'main', 1, 'navigator.created', 1, 0, 0, 'old', '{}')")
            try database.execute(
                #"INSERT INTO commands (id, navigator, seq, reply) VALUES ('old', 'main', 1, '{"ok":true}')"#)
        }
        var numberer = Numberer(seq: 1, revisions: ["main": 1])
        let store = try EventStore(path: path)
        #expect(try store.command("old") == StoredCommand(reply: ["ok": true], fingerprint: nil))
        var unit = numberer.unit("main", commandID: "new", reply: ["ok": true, "n": 2])
        unit.fingerprint = UInt64.max - 1  // past Int64.max: stored as its bit pattern
        try store.append(unit)
        #expect(try store.command("new") == StoredCommand(reply: ["ok": true, "n": 2], fingerprint: UInt64.max - 1))
        #expect(try store.command("never") == nil)
        #expect(try store.allEvents().map(\.seq) == [1, 2])
        store.close()
        let database = try Database(path: path)
        #expect(try database.scalarInt("PRAGMA user_version") == Schema.currentVersion)
    }

    /// `EventLog` reads without migrating: a version-1 file stays version 1; a newer file or one with
    /// no schema is refused by name.
    @Test func theReadOnlyLogReadsOlderSchemasAndLeavesThemAlone() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("events.db")
        do {
            var numberer = Numberer()
            let store = try EventStore(path: path)
            try store.append(numberer.unit("main", count: 3))
            store.close()
            let database = try Database(path: path)
            try database.execute("ALTER TABLE commands DROP COLUMN fingerprint; PRAGMA user_version = 1")
        }
        let log = try EventLog(path: path)
        #expect(log.schemaVersion == 1)
        var seqs: [Int64] = []
        try log.forEachEvent(after: 0) { seqs.append($0.seq) }
        #expect(seqs == [1, 2, 3])
        #expect(try log.integrityCheck().isEmpty)
        #expect(try Database(path: path).scalarInt("PRAGMA user_version") == 1)

        try Database(path: path).execute("PRAGMA user_version = 99")
        #expect(throws: StoreError.self) { try EventLog(path: path) }
        let empty = directory.file("empty.db")
        _ = try Database(path: empty)
        do {
            _ = try EventLog(path: empty)
            Issue.record("a file with no schema opened as a log")
        } catch {
            #expect(error.message.contains("is not a Segue event store"))
        }
    }

    @Test func aFileThatIsNotADatabaseFailsToOpenWithInternal() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("events.db")
        #expect(FileManager.default.createFile(atPath: path, contents: Data(repeating: 0x5a, count: 8192)))
        do {
            _ = try EventStore(path: path)
            Issue.record("a garbage file opened as an event store")
        } catch {
            #expect(error.code == .internal)
        }
    }

    /// "Readable by people with nothing but sqlite3": the shell shows the log as stored.
    @Test func theLogIsReadableWithTheSqlite3Shell() throws {
        let directory = TemporaryDirectory()
        var numberer = Numberer()
        let store = try EventStore(path: directory.file("events.db"))
        try store.append(numberer.unit("main", commandID: "c1", reply: ["ok": true]))
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        shell.arguments = [
            directory.file("events.db"),
            "SELECT seq, navigator, revision, type, command, json_extract(data, '$.transition') FROM events; "
                + "SELECT id, reply FROM commands;",
        ]
        let output = Pipe()
        shell.standardOutput = output
        try shell.run()
        shell.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text == "1|main|1|transition.started|c1|1\nc1|{\"ok\":true}\n")
    }

    @Test(arguments: [
        (Int32(13), ErrorCode.unavailable),  // SQLITE_FULL
        (Int32(10), .unavailable),  // SQLITE_IOERR
        (Int32(10 | (4 << 8)), .unavailable),  // SQLITE_IOERR_FSYNC
        (Int32(5), .unavailable),  // SQLITE_BUSY
        (Int32(8), .unavailable),  // SQLITE_READONLY
        (Int32(14), .unavailable),  // SQLITE_CANTOPEN
        (Int32(11), .internal),  // SQLITE_CORRUPT
        (Int32(26), .internal),  // SQLITE_NOTADB
        (Int32(19), .conflict),  // SQLITE_CONSTRAINT
        (Int32(18), .tooLarge),  // SQLITE_TOOBIG
    ])
    func sqliteCodesMapToStableWireCodes(extendedCode: Int32, code: ErrorCode) {
        let error = StoreError(kind: .sqlite, extendedCode: extendedCode, message: "m")
        #expect(error.code == code)
        #expect(error.primaryCode == extendedCode & 0xff)
    }
}

@Suite struct OpenCheckTests {
    /// Builds a store of a few hundred events and closes it, returning its path.
    static func populatedStore(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("events.db")
        var numberer = Numberer()
        let store = try EventStore(path: path)
        for _ in 0..<50 { try store.append(numberer.unit("main", count: 10)) }
        store.close()
        // Fold the WAL into the file so the damage below hits the pages SQLite reads.
        try Database(path: path).execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return path
    }

    @Test func deferredCheckReportsASoundFile() throws {
        let directory = TemporaryDirectory()
        let path = try Self.populatedStore(in: directory)
        let reported = DispatchSemaphore(value: 0)
        let outcome = Outcomes()
        let store = try EventStore(
            path: path,
            check: .deferred { error in
                outcome.record(0, error.map { .failure($0) } ?? .success(()))
                reported.signal()
            })
        #expect(store.lastSeq == 500)
        #expect(reported.wait(timeout: .now() + .milliseconds(200)) == .timedOut, "it waits to be started")
        let then = DispatchSemaphore(value: 0)
        let sound = Mutex<[Bool]>([])
        store.startDeferredCheck { ok in
            // After the report: what waits for the check sees its outcome logged first.
            sound.withLock { $0.append(ok && outcome.all.count == 1) }
            then.signal()
        }
        // Started already: told at once.
        store.startDeferredCheck { ok in sound.withLock { $0.append(ok) } }
        #expect(sound.withLock { $0 } == [true])
        reported.wait()
        then.wait()
        #expect(outcome.all.first?.1.failure == nil)
        #expect(sound.withLock { $0 } == [true, true])
    }

    /// What waits for the deferred check of a damaged file is told it is not sound.
    @Test func deferredCheckTellsWhatWaitsForItOfADamagedFile() throws {
        let directory = TemporaryDirectory()
        let path = try Self.populatedStore(in: directory)
        try Self.damage(path)
        let sound = Mutex<Bool?>(nil)
        let then = DispatchSemaphore(value: 0)
        let store = try EventStore(path: path, check: .deferred { _ in })
        store.startDeferredCheck { ok in
            sound.withLock { $0 = ok }
            then.signal()
        }
        then.wait()
        #expect(sound.withLock { $0 } == false)
    }

    /// Pages 3 to 6: b-tree pages of the events table and its indexes, headers included.
    static func damage(_ path: String) throws {
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        let pageSize = 4096
        try handle.seek(toOffset: UInt64(pageSize * 2))
        handle.write(Data(repeating: 0xa5, count: pageSize * 4))
        try handle.close()
    }

    /// Started from a realtime thread (the daemon's frame loop under `CPUSchedulingPolicy=fifo`), the
    /// check's thread does not inherit the policy: a whole-file read must never hold a frame's core.
    /// (Setting SCHED_FIFO needs root, as CI runs; without it the test fails rather than passing.)
    @Test func theDeferredCheckRunsAtNormalPolicyWhenStartedFromARealtimeThread() throws {
        let directory = TemporaryDirectory()
        let path = try Self.populatedStore(in: directory)
        let reported = DispatchSemaphore(value: 0)
        let policy = Mutex<Int32>(-1)
        let store = try EventStore(
            path: path,
            check: .deferred { _ in
                policy.withLock { $0 = sched_getscheduler(0) }
                reported.signal()
            })
        let realtime = Mutex<Bool>(false)
        let starter = Thread {
            var parameters = sched_param(sched_priority: 1)
            realtime.withLock { $0 = sched_setscheduler(0, SCHED_FIFO, &parameters) == 0 }
            store.startDeferredCheck()
        }
        starter.start()
        reported.wait()
        try #require(realtime.withLock { $0 }, "could not make the starting thread realtime (errno \(errno))")
        #expect(policy.withLock { $0 } == SCHED_OTHER)
    }

    @Test func quickCheckRefusesADamagedFile() throws {
        let directory = TemporaryDirectory()
        let path = try Self.populatedStore(in: directory)
        try Self.damage(path)
        do {
            _ = try EventStore(path: path)
            Issue.record("a damaged file passed the quick check")
        } catch {
            #expect(error.code == .internal)
            #expect(error.message.contains("failed its quick check: "), "\(error.message)")
            // quick_check's lines, one record's.
            #expect(!error.message.contains("\n"), "\(error.message)")
        }
    }
}
