import Foundation
import SeguePostgres
import SegueStore

/// A log opened for writing by `import` and `migrate`, holding its writer lock (so both are refused
/// while a segued runs on it): a data dir's `segue.db`, created with the directory if missing, or a
/// PostgreSQL database (a `postgresql://` URL or a keyword conninfo), whose schema is created if missing.
final class WritableLog {
    let place: String
    let store: any EventStoring
    /// Whether this opening created the data dir's log, which `close(keep: false)` then removes:
    /// a failed import leaves no data dir, no empty log and no WAL behind.
    let created: Bool
    private let createdDirectory: Bool

    init(_ place: String) throws {
        self.place = place
        if LogSource.isStoreURL(place) {
            let opened: PostgresEventStore
            do { opened = try PostgresEventStore(conninfo: place) } catch {
                throw IOFailure(error.message)
            }
            store = opened
            if let migration = opened.migration { Self.report(migration, of: opened.location) }
            created = false
            createdDirectory = false
            return
        }
        let path = Self.databasePath(place)
        createdDirectory = !FileManager.default.fileExists(atPath: place)
        created = !FileManager.default.fileExists(atPath: path)
        do { try FileManager.default.createDirectory(atPath: place, withIntermediateDirectories: true) } catch {
            throw IOFailure("Cannot create the data dir \(place): \(IOFailure.reason(error)).")
        }
        let opened: EventStore
        do { opened = try EventStore(path: path) } catch {
            // A log another process holds open is that process's, however new.
            if error.kind != .inUse { Self.remove(place, directory: createdDirectory, log: created) }
            throw IOFailure("Cannot open \(path): \(error.message)", store: error)
        }
        store = opened
        if let migration = opened.migration { Self.report(migration, of: path) }
    }

    /// A schema migration the opening ran said on stderr: an older segued refuses the file from now
    /// on, which whoever imports into an old data dir must know.
    private static func report(_ migration: SchemaMigration, of path: String) {
        Output.error(
            "Migrated \(path) from schema version \(migration.from) to \(migration.to) (an older segued "
                + "refuses it from now on).")
    }

    /// What the log is called in messages: "data dir" or "database".
    var noun: String { LogSource.isStoreURL(place) ? "database" : "data dir" }

    static func databasePath(_ directory: String) -> String {
        (directory as NSString).appendingPathComponent("segue.db")
    }

    /// Closes the store; with `keep` false removes what this opening created, if it is still empty.
    func close(keep: Bool) {
        let empty = store.lastSeq == 0
        store.close()
        if !keep, empty { Self.remove(place, directory: createdDirectory, log: created) }
    }

    /// Removes the log holding its writer lock (never under a segued that took it meanwhile), then
    /// the directory if this opening made it and nothing else is in it.
    private static func remove(_ directory: String, directory created: Bool, log: Bool) {
        guard log, WriterLock.removeLog(at: databasePath(directory)) else { return }
        if created { rmdir(directory) }
    }
}
