import PostgresTestSupport
import Synchronization
import Testing

@testable import SeguePostgres

/// The server's notices reach the handler the connection's settings name, with their fields,
/// instead of libpq's line on stderr.
@Suite struct PostgresNoticeTests {
    @Test(
        arguments: [
            ("WARNING", "01000", "RAISE WARNING 'disk almost full'", "disk almost full", nil),
            (
                "NOTICE", "00000", "RAISE NOTICE 'table created' USING HINT = 'none needed'", "table created",
                "none needed"
            ),
            (
                "WARNING", "57P01", "RAISE WARNING 'shutting down' USING ERRCODE = 'admin_shutdown'", "shutting down",
                nil
            ),
        ] as [(String, String, String, String, String?)])
    func aNoticeReachesTheHandler(severity: String, sqlState: String, raise: String, message: String, hint: String?)
        throws
    {
        let received = Mutex<[PostgresNotice]>([])
        var settings = try ConnectionSettings(conninfo: try LogPlace.server().conninfo())
        settings.notices = PostgresNoticeHandler { notice in received.withLock { $0.append(notice) } }
        let connection = try PostgresConnection(settings)
        try connection.execute("DO $$ BEGIN \(raise); END $$")
        let notices = received.withLock { $0 }
        #expect(
            notices == [PostgresNotice(severity: severity, sqlState: sqlState, message: message, hint: hint)],
            "\(notices)")
    }

    /// A handler is no part of where to connect: settings that differ only in it are equal.
    @Test func theHandlerIsNotPartOfTheSettingsIdentity() throws {
        let plain = try ConnectionSettings(conninfo: "host=/run/postgresql dbname=segue")
        var handled = plain
        handled.notices = PostgresNoticeHandler { _ in }
        #expect(plain == handled)
    }
}
