import SeguePostgres
import Testing

@testable import SegueDaemon

/// PostgreSQL's notices as lines of segued's log (`StoreOpening.noticeHandler`).
@Suite struct PostgresNoticeLogTests {
    @Test(arguments: [
        ("FATAL", "<3>"), ("ERROR", "<3>"), ("PANIC", "<3>"), ("WARNING", "<4>"), ("NOTICE", "<5>"), ("INFO", "<6>"),
        ("LOG", "<6>"), ("DEBUG", "<7>"),
    ])
    func eachSeverityLogsAtItsLevel(severity: String, prefix: String) {
        let buffer = LogBuffer()
        let logger = Logger(label: "segued", threshold: LogThreshold(.trace), handler: buffer.handler)
        let handler = StoreOpening.noticeHandler("PostgreSQL at dbname=segue", logger: logger)
        handler.receive(
            PostgresNotice(severity: severity, sqlState: "57P01", message: "terminating connection", hint: "retry"))
        #expect(
            buffer.lines == [
                "\(prefix)segued: PostgreSQL at dbname=segue says: terminating connection (SQLSTATE 57P01) Hint: retry\n"
            ])
    }

    /// A password in `PGPASSWORD`, which libpq would use, is said at start with the file to use instead;
    /// an empty or absent one says nothing.
    @Test(arguments: [(["PGPASSWORD": "hunter2"], true), (["PGPASSWORD": ""], false), ([:], false)])
    func aPasswordInTheEnvironmentIsSaid(environment: [String: String], said: Bool) {
        let warning = StoreOpening.passwordInEnvironment(environment)
        #expect((warning != nil) == said)
        if let warning {
            #expect(warning.hasPrefix("PGPASSWORD is set in segued's environment") && !warning.contains("hunter2"))
            #expect(warning.contains("passfile= or PGPASSFILE (mode 0600"))
        }
    }
}
