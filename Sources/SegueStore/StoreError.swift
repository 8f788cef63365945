import CSQLite
import SegueCore

/// The one error type of SegueStore, in the style of GRDB's `DatabaseError`.
///
/// It keeps what an operator needs to diagnose a storage fault (the SQLite result code, primary and
/// extended, or PostgreSQL's SQLSTATE; the database's own message and the SQL that failed) and what
/// a client needs to react (`code`,
/// a wire `ErrorCode` from a stable mapping: storage faults are `unavailable` because a retry later may
/// succeed, corruption is `internal` because it will not).
package struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, independent of SQLite's numbering.
    package enum Kind: String, Sendable, Equatable {
        /// SQLite returned an error; `extendedCode` says which.
        case sqlite
        /// PostgreSQL (or libpq) returned an error; `sqlState` says which.
        case postgres
        /// An append was not numbered right after the log (`seq` or per-navigator `revision`).
        case outOfSequence
        /// A command id that already has a stored reply was appended again.
        case duplicateCommand
        /// An imported line or stored JSON text could not be read.
        case invalidData
        /// The store was closed before the request could run.
        case closed
        /// A file outside SQLite (export or import) could not be read or written.
        case io
        /// Another process holds the log's writer lock (`WriterLock`): a second segued, or an import.
        case inUse
        /// The log's other daemons run with a setting this one does not share (their shard count,
        /// found when the writer connected again): it cannot serve the log, and stops.
        case misconfigured
    }

    package var kind: Kind
    /// SQLite's extended result code (e.g. `SQLITE_IOERR_FSYNC`), or 0 when SQLite was not involved.
    package var extendedCode: Int32
    /// PostgreSQL's five-character SQLSTATE (e.g. `53100`, disk full), or nil when it was not involved.
    package var sqlState: String?
    package var message: String
    /// The statement that failed, when there was one.
    package var sql: String?
    /// For imports: the 1-based line of the input at fault.
    package var line: Int?

    package init(
        kind: Kind, extendedCode: Int32 = 0, sqlState: String? = nil, message: String, sql: String? = nil,
        line: Int? = nil
    ) {
        self.kind = kind
        self.extendedCode = extendedCode
        self.sqlState = sqlState
        self.message = message
        self.sql = sql
        self.line = line
    }

    /// SQLite's primary result code (`SQLITE_FULL`, `SQLITE_IOERR`, ...): the low byte of the extended one.
    package var primaryCode: Int32 { extendedCode & 0xff }

    /// The wire error code a command that hit this error replies with (docs/protocol.md, "Error codes"; docs/design.md,
    /// "Recovery").
    package var code: ErrorCode {
        switch kind {
        case .sqlite: Self.wireCode(forPrimary: primaryCode)
        case .postgres: Self.wireCode(forSQLState: sqlState ?? "XX000")
        case .outOfSequence, .duplicateCommand: .conflict
        case .invalidData: .badRequest
        case .closed, .io, .inUse, .misconfigured: .unavailable
        }
    }

    /// The stable mapping from SQLite's primary codes to wire codes.
    ///
    /// Faults of the environment (disk full, I/O, locks, permissions, memory) may clear, so they are
    /// `unavailable`; a damaged file or a misuse of SQLite will not, so it is `internal`.
    static func wireCode(forPrimary primary: Int32) -> ErrorCode {
        switch primary {
        case SQLITE_FULL, SQLITE_IOERR, SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_BUSY, SQLITE_LOCKED, SQLITE_NOMEM,
            SQLITE_PERM, SQLITE_NOLFS, SQLITE_PROTOCOL, SQLITE_INTERRUPT, SQLITE_ABORT:
            .unavailable
        case SQLITE_CONSTRAINT: .conflict
        case SQLITE_TOOBIG: .tooLarge
        default: .internal
        }
    }

    /// The stable mapping from PostgreSQL's SQLSTATEs to wire codes, on the same rule as SQLite's:
    /// what the environment may clear (a lost connection, resources such as disk space, a server
    /// shutting down, a lock, a read-only server, missing permissions) is `unavailable`; a constraint
    /// is `conflict`, a limit `tooLarge`; anything else (a damaged or foreign schema) is `internal`.
    static func wireCode(forSQLState sqlState: String) -> ErrorCode {
        switch sqlState {
        case "25006", "42501", "3D000": return .unavailable
        default: break
        }
        switch sqlState.prefix(2) {
        // SG: Segue's own, raised by segue_fence: another daemon leads the shard, or appended first.
        case "08", "53", "57", "58", "40", "28", "55", "SG": return .unavailable
        case "23": return .conflict
        case "54": return .tooLarge
        default: return .internal
        }
    }

    /// True when the connection that saw this error must not be trusted again (fsyncgate: after a
    /// failed write or sync the kernel may have dropped dirty pages, so the handle is replaced
    /// rather than retried). A read-only handle is replaced too: SQLite opens a file it may not write
    /// read-only and keeps it so, so only a new handle sees the permissions once they are fixed.
    var poisonsConnection: Bool {
        guard kind == .sqlite else { return false }
        switch primaryCode {
        case SQLITE_IOERR, SQLITE_CORRUPT, SQLITE_NOTADB, SQLITE_CANTOPEN, SQLITE_PROTOCOL, SQLITE_READONLY: return true
        default: return false
        }
    }

    /// The file itself is damaged (SQLite found a corrupt page, or no database): waiting does not help,
    /// a backup does.
    package var isDamage: Bool {
        kind == .sqlite && (primaryCode == SQLITE_CORRUPT || primaryCode == SQLITE_NOTADB)
    }

    /// What an append or task gets once its store is closed.
    package static let closedStore = StoreError(
        kind: .closed, message: "The event store is closed; the command was not stored. Retry once segued is back.")

    /// What a unit decided after a failed one of its generation gets (`AppendUnit.generation`).
    package static let decidedAfterAFailure = StoreError(
        kind: .outOfSequence,
        message: "Not stored: it was decided after an append that failed, so it may build on events the log does "
            + "not hold. Nothing of it was written; the command may be retried.")

    /// This error as the pure core's error, for replies.
    package var coreError: CoreError { CoreError(code, message) }

    package var description: String {
        var text = "\(code.rawValue): \(message)"
        if kind == .sqlite { text += " (SQLite code \(primaryCode), extended \(extendedCode))" }
        if kind == .postgres, let sqlState { text += " (SQLSTATE \(sqlState))" }
        if let line { text += " (line \(line))" }
        if let sql { text += " [\(StatementText.oneLine(sql))]" }
        return text
    }
}
