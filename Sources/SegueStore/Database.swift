import CSQLite

/// One SQLite connection, owned by exactly one thread at a time (GRDB's `Database`, reduced).
///
/// `init` opens and throws, `deinit` closes, so a handle can neither leak nor be used after close.
/// Connections are opened with `SQLITE_OPEN_NOMUTEX`: SQLite's own per-connection mutex is skipped
/// because the owner serializes access, which is also why the type is not `Sendable`.
package final class Database {
    let handle: OpaquePointer
    let path: String

    /// Opens (and with `create`, creates) the database file at `path`.
    package init(path: String, create: Bool = true) throws(StoreError) {
        var db: OpaquePointer?
        var flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX
        if create { flags |= SQLITE_OPEN_CREATE }
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw StoreError(
                kind: .sqlite, extendedCode: rc,
                message: "Cannot open the event store at \(path): \(message). Check the path and its permissions.")
        }
        sqlite3_extended_result_codes(db, 1)
        self.handle = db
        self.path = path
    }

    /// True when SQLite opened the file read-only, which it does without an error when the process
    /// may not write the file (`SQLITE_OPEN_READWRITE`: "or reading only if the file is write
    /// protected by the operating system").
    var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    deinit {
        // close_v2 defers the close until the last statement is finalized; statements hold a strong
        // reference to their database, so by now there are none.
        sqlite3_close_v2(handle)
    }

    /// The error for result code `rc` just returned on this connection.
    func error(_ rc: Int32, sql: String?) -> StoreError {
        let extended = sqlite3_extended_errcode(handle)
        let message = String(cString: sqlite3_errmsg(handle))
        // The connection's last error can be stale when `rc` came from elsewhere (e.g. a step whose
        // error was reset); prefer the code we were given when they disagree.
        let code = (extended & 0xff) == (rc & 0xff) ? extended : rc
        return StoreError(kind: .sqlite, extendedCode: code, message: message, sql: sql)
    }

    /// Runs one or more statements that return no rows we need.
    package func execute(_ sql: String) throws(StoreError) {
        var errmsg: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errmsg)
        if let errmsg { sqlite3_free(errmsg) }
        guard rc == SQLITE_OK else { throw error(rc, sql: sql) }
    }

    package func prepare(_ sql: String) throws(StoreError) -> Statement {
        try Statement(database: self, sql: sql)
    }

    /// The first column of the first row of `sql` as text: how pragmas answer.
    package func scalarText(_ sql: String) throws(StoreError) -> String? {
        let statement = try prepare(sql)
        guard try statement.step() else { return nil }
        return statement.text(at: 0)
    }

    /// The first column of the first row of `sql` as an integer (0 for NULL or no row).
    func scalarInt(_ sql: String) throws(StoreError) -> Int64 {
        let statement = try prepare(sql)
        guard try statement.step() else { return 0 }
        return statement.int64(at: 0)
    }

    /// False while a transaction is open on this connection.
    var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// Milliseconds SQLite keeps retrying a lock held by another connection before `SQLITE_BUSY`.
    func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    /// Keeps the WAL file when the last connection closes (`SQLITE_FCNTL_PERSIST_WAL`).
    ///
    /// SQLite normally deletes the WAL on close, so a restarted daemon's first few thousand commits
    /// each extend a new file: the sync then also writes the file's size and block map, about twice
    /// the cost of overwriting a WAL that already has its length. Every connection of the store sets
    /// it, since whichever closes last decides. The kept file is checkpointed and restarted on close
    /// (`LogWriter.restartWAL`), so an open has one frame to replay; `journal_size_limit` stays at its
    /// default, so it is not truncated.
    func keepWALFile() {
        var keep: Int32 = 1
        sqlite3_file_control(handle, "main", SQLITE_FCNTL_PERSIST_WAL, &keep)
    }

    /// Frames in the WAL after this connection's last commit, as SQLite's WAL hook reported them
    /// (0 until `trackWALLength` and a commit).
    private(set) var walFrames: Int32 = 0

    /// Records the WAL's length after every commit in `walFrames`, through `sqlite3_wal_hook`.
    ///
    /// This also turns off SQLite's automatic checkpoint on this connection (`wal_autocheckpoint` is
    /// itself a WAL hook, and a connection has one): the caller decides when to checkpoint.
    func trackWALLength() {
        sqlite3_wal_hook(handle, Self.walHook, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Runs in COMMIT on the committing thread; the connection it points to is alive, since only its
    /// own handle calls it and `deinit` closes the handle.
    private static let walHook:
        @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?, Int32)
            -> Int32 = { context, _, _, frames in
                if let context { Unmanaged<Database>.fromOpaque(context).takeUnretainedValue().walFrames = frames }
                return SQLITE_OK
            }

    /// A PASSIVE checkpoint: copies the WAL frames no reader still needs into the database file and
    /// syncs it, without waiting for (or blocking) other connections. Returns the WAL's length and how
    /// many of its frames are now in the database file (SQLite restarts the WAL at the next write once
    /// the two are equal), or `busy` when another connection's checkpoint was running: not an error,
    /// but nothing was copied.
    func checkpointPassive() throws(StoreError) -> (walFrames: Int32, copied: Int32, busy: Bool) {
        var frames: Int32 = 0
        var copied: Int32 = 0
        let rc = sqlite3_wal_checkpoint_v2(handle, "main", SQLITE_CHECKPOINT_PASSIVE, &frames, &copied)
        guard rc == SQLITE_OK || rc == SQLITE_BUSY else { throw error(rc, sql: "PRAGMA wal_checkpoint(PASSIVE)") }
        return (frames, copied, rc == SQLITE_BUSY)
    }

    /// Pages this connection has read from the file (or the WAL) rather than found in its page cache,
    /// since it opened (`SQLITE_DBSTATUS_CACHE_MISS`): what a query cost in I/O, without a clock.
    var pagesRead: Int32 {
        var current: Int32 = 0
        var highest: Int32 = 0
        sqlite3_db_status(handle, SQLITE_DBSTATUS_CACHE_MISS, &current, &highest, 0)
        return current
    }

    /// Rolls back an open transaction, if any; errors are ignored because the caller is already
    /// reporting the error that made it roll back.
    func rollbackQuietly() {
        if !isAutocommit { sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
    }
}

@available(*, unavailable)
extension Database: Sendable {}
