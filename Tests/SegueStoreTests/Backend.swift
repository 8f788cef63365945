import Foundation
import PostgresTestSupport
import SegueCore
import Testing

@testable import SeguePostgres
@testable import SegueStore

/// The store backends a backend-independent test runs against.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }
}

/// A place for one test's log, on either backend: a file in a temporary directory, or a schema of
/// its own in the run's PostgreSQL server. Opening it again reopens the same log.
///
/// On PostgreSQL without a server (postgresql-15 not installed) the test is cancelled, which Swift
/// Testing reports as skipped with the reason.
final class LogPlace {
    let backend: Backend
    let directory = TemporaryDirectory()
    /// The PostgreSQL conninfo (with the schema as `search_path`), nil for SQLite.
    let conninfo: String?
    let schema: String?

    init(_ backend: Backend) throws {
        self.backend = backend
        guard backend == .postgres else {
            conninfo = nil
            schema = nil
            return
        }
        let server = try Self.server()
        let made = try server.makeSchema()
        conninfo = made.conninfo
        schema = made.name
    }

    /// The run's shared server, or a cancelled (skipped) test saying why there is none.
    /// A cancelled case of a parameterised test is counted without a word in the run's output, so
    /// the reason is also printed, once.
    static func server() throws -> PostgresTestServer {
        guard let server = PostgresTestServer.shared else {
            let reason = "No PostgreSQL server: \(PostgresTestServer.unavailableReason ?? "unknown reason")"
            _ = skipNotice
            try Test.cancel(Comment(rawValue: reason))
        }
        return server
    }

    private static let skipNotice: Void = {
        print(
            "⚠︎ SKIPPED: every PostgreSQL test and test case of this run: \(PostgresTestServer.unavailableReason ?? "")")
    }()

    func open(durability: Durability = .full) throws -> any EventStoring {
        switch backend {
        case .sqlite: try EventStore(path: directory.file("events.db"), durability: durability)
        case .postgres: try PostgresEventStore(conninfo: conninfo!, durability: durability)
        }
    }

    /// A second place on the same backend, for tests that copy a log from one store to another.
    func sibling() throws -> LogPlace { try LogPlace(backend) }
}

extension EventStoring {
    /// The whole log, for assertions.
    func allEvents() throws -> [EventRecord] { try events(after: 0, navigator: nil, limit: .max) }
}

extension EventStoring {
    /// Runs `body` on the store's committer thread holding the writer, whichever the backend: tests
    /// line work up behind it.
    func withWriterForTesting(_ body: @escaping () -> Void) throws {
        switch self {
        case let store as EventStore: try store.withWriter { _ in body() }
        case let store as PostgresEventStore: try store.withWriter { _ in body() }
        default: Issue.record("no writer hook for \(type(of: self))")
        }
    }
}
