import Foundation
import PostgresTestSupport
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
