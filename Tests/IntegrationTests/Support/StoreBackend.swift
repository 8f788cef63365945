import Foundation
import PostgresTestSupport
import SeguePostgres
import Testing

/// The store a test's daemon keeps its log in: SQLite in the data dir, or a database of its own on
/// the PostgreSQL server the test run starts (`PostgresTestServer`).
///
/// Without postgresql-15 the PostgreSQL cases are cancelled, which Swift Testing reports as skipped,
/// and the reason is printed once.
enum StoreBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// The backend of a daemon whose test does not choose one: `SEGUE_TEST_STORE` (`sqlite`, the
    /// default, or `postgres`), so that `make test` can run the daemon tests a second time on
    /// PostgreSQL. Tests of what only one backend has (the data dir's files) choose it explicitly.
    static let selected: StoreBackend = {
        let name = ProcessInfo.processInfo.environment["SEGUE_TEST_STORE"] ?? ""
        guard !name.isEmpty else { return .sqlite }
        guard let backend = StoreBackend(rawValue: name) else {
            fatalError("SEGUE_TEST_STORE must be sqlite or postgres, not \(name)")
        }
        return backend
    }()

    /// segued's arguments for a new, empty log on this backend (none for SQLite: the data dir's).
    func newLog() throws -> [String] {
        switch self {
        case .sqlite: return []
        case .postgres: return ["--store-url", try Self.newDatabase()]
        }
    }

    /// A new database on the run's server, as a `postgresql://` URL.
    static func newDatabase() throws -> String {
        let server = try Self.server()
        let name = "d_" + UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: "")
        try server.admin().execute("CREATE DATABASE \(name)")
        return url(server, database: name)
    }

    /// A database whose tables the run's superuser made (a segued started on it and stopped), and a
    /// new login role given `grants` on them (SQL, ROLE standing for its name): a deployment where
    /// another role owns the tables. Returns a session on the database as the owner and the role's URL.
    static func tablesAndRole(granting grants: String) throws -> (
        admin: PostgresConnection, role: String, roleURL: String
    ) {
        let server = try Self.server()
        let ownerURL = try newDatabase()
        let database = String(ownerURL.dropFirst("postgresql:///".count).prefix { $0 != "?" })
        try DaemonProcess(store: .sqlite, arguments: ["--store-url", ownerURL]).stop()
        let role = "r_" + UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: "")
        let admin = try server.admin(database: database)
        try admin.execute("CREATE ROLE \(role) LOGIN; " + grants.replacingOccurrences(of: "ROLE", with: role))
        return (admin, role, ownerURL.replacingOccurrences(of: "user=segue", with: "user=\(role)"))
    }

    /// The URL of `database` on `server` as its superuser.
    static func url(_ server: PostgresTestServer, database: String) -> String {
        "postgresql:///\(database)?host=\(server.directory)&port=\(server.port)&user=segue"
    }

    /// The run's shared server, or a cancelled (skipped) test that says why there is none.
    static func server() throws -> PostgresTestServer {
        guard let server = PostgresTestServer.shared else {
            _ = skipNotice
            try Test.cancel(Comment(rawValue: "No PostgreSQL server: \(PostgresTestServer.unavailableReason ?? "")"))
        }
        return server
    }

    private static let skipNotice: Void = {
        print("⚠︎ SKIPPED: the PostgreSQL cases of the daemon tests: \(PostgresTestServer.unavailableReason ?? "")")
    }()
}

extension Trait where Self == ConditionTrait {
    /// A test of what only SQLite has (the data dir's database file, its lock, its disk): it runs
    /// in the SQLite pass and is skipped, saying so, when `SEGUE_TEST_STORE` selects PostgreSQL.
    static var sqliteOnly: Self {
        .enabled(if: StoreBackend.selected == .sqlite, "tests SQLite's own files; runs in the SQLite pass")
    }

    /// A test of frame timing (which frames a tick lands in, how late a subscriber reads), which the
    /// store does not change: run a second time on a machine busy with a PostgreSQL server, it
    /// would test the machine's load. It runs once, in the SQLite pass.
    static var frameTiming: Self {
        .enabled(if: StoreBackend.selected == .sqlite, "tests frame timing, not the store; runs in the SQLite pass")
    }

    /// A test that picks its backends itself (`StoreBackend.allCases`, a server of its own, or daemons
    /// it starts in network namespaces on SQLite): it runs once, in the SQLite pass.
    static var choosesItsBackends: Self {
        .enabled(if: StoreBackend.selected == .sqlite, "chooses its backends itself; runs in the SQLite pass")
    }
}
