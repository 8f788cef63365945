import SegueCore
import SeguePostgres
import SegueStore

/// `store`: which database keeps the log (docs/operations.md, "Choosing a store backend").
///
/// `{"kind": "sqlite"}`, the default, is one file in `dataDir`; `{"kind": "postgres", "conninfo":
/// "host=/run/postgresql dbname=segue"}` is a PostgreSQL database, the conninfo in libpq's key=value
/// or `postgresql://` syntax. `--store-url postgresql://…` on the command line replaces it. A password
/// is refused in the conninfo: libpq reads it from `passfile=` or `PGPASSFILE` (`~/.pgpass` by default).
package enum StoreConfig: Sendable, Equatable {
    case sqlite
    case postgres(conninfo: String)

    package static let keys = ["kind", "conninfo"]

    package var kind: StoreKind {
        switch self {
        case .sqlite: .sqlite
        case .postgres: .postgres
        }
    }

    /// Reads and checks `store` from the config file: libpq parses the conninfo now, so a typo or a
    /// password in it fails start-up (and `--check-config`) with the path of the value.
    static func read(_ value: JSON, at path: ConfigPath) throws(ConfigError) -> StoreConfig {
        var reader = try ConfigReader(value, at: path, known: keys)
        let kinds = StoreKind.allCases.map(\.rawValue)
        // Absent or null: the default, as every key of the file.
        let word = try reader.choice("kind", from: kinds) ?? StoreKind.sqlite.rawValue
        let conninfo = try reader.string("conninfo")
        try reader.finish()
        switch (StoreKind(rawValue: word)!, conninfo) {
        case (.sqlite, nil):
            return .sqlite
        case (.sqlite, _?):
            throw .config(at: path.key("conninfo"), "is only for kind \"postgres\"; an SQLite log lives in dataDir")
        case (.postgres, nil):
            throw .config(
                at: path.key("conninfo"),
                "is required for kind \"postgres\": a libpq connection string such as "
                    + "\"host=/run/postgresql dbname=segue\"")
        case (.postgres, let conninfo?):
            if let problem = problem(conninfo) { throw .config(at: path.key("conninfo"), problem) }
            return .postgres(conninfo: conninfo)
        }
    }

    /// Reads `--store-url`: a `postgresql://` (or `postgres://`) URL.
    static func read(url: String) throws(ConfigError) -> StoreConfig {
        func invalid(_ reason: String) -> ConfigError {
            ConfigError(.usage, at: "--store-url", "invalid value for '--store-url': \(reason)")
        }
        guard ConnectionSettings.isURL(url) else {
            throw invalid("must be a postgresql:// URL (an SQLite log is chosen with --data-dir)")
        }
        if let problem = problem(url) { throw invalid(problem) }
        return .postgres(conninfo: url)
    }

    /// What libpq (or Segue's own rule against passwords) finds wrong with `conninfo`; its text never
    /// quotes a secret.
    static func problem(_ conninfo: String) -> String? {
        do throws(PostgresError) {
            _ = try ConnectionSettings(conninfo: conninfo)
            return nil
        } catch {
            return error.message
        }
    }

    /// The conninfo without secrets, for logs and messages; nil for SQLite.
    package var redactedConninfo: String? {
        guard case .postgres(let conninfo) = self else { return nil }
        return (try? ConnectionSettings(conninfo: conninfo))?.redacted ?? "(invalid conninfo)"
    }

    /// As the config file writes it. The conninfo holds no password (refused when read), so
    /// `--check-config` may print it as given.
    var json: JSON {
        switch self {
        case .sqlite: ["kind": "sqlite"]
        case .postgres(let conninfo): ["kind": "postgres", "conninfo": .string(conninfo)]
        }
    }
}
