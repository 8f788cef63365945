import Foundation
import SegueStore

/// What a start that fails (a port in use, a log that cannot be opened) leaves behind: nothing, when
/// it was this start that created the log and the log is still empty. A typo in an endpoint must not
/// leave a data dir (and, before the store's close truncates it, an 18 MB preallocated WAL) behind.
struct FailedStartCleanup {
    let dataDirectory: String
    /// What existed before this start touched the data dir.
    private let directoryExisted: Bool
    private let logExisted: Bool

    init(dataDirectory: String) {
        self.dataDirectory = dataDirectory
        directoryExisted = FileManager.default.fileExists(atPath: dataDirectory)
        logExisted = FileManager.default.fileExists(atPath: Self.path(dataDirectory, "segue.db"))
    }

    static func path(_ directory: String, _ file: String) -> String {
        (directory as NSString).appendingPathComponent(file)
    }

    /// Closes `store` and removes the log this start created, if it holds no event; then the data
    /// dir, if this start created it and nothing else is in it. The log is removed holding its writer
    /// lock, so never under a daemon that started beside this one and holds it.
    func removeWhatThisStartCreated(store: (any EventStoring)?) {
        let empty = store.map { $0.lastSeq == 0 } ?? true
        store?.close()
        // A PostgreSQL log is the database's: nothing of it is in the data dir.
        guard !logExisted, empty, (store?.kind ?? .sqlite) == .sqlite,
            WriterLock.removeLog(at: Self.path(dataDirectory, "segue.db"))
        else { return }
        // rmdir(2) removes only an empty directory: never what another start put in it meanwhile.
        if !directoryExisted { rmdir(dataDirectory) }
    }
}
