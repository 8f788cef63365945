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

    /// A password in `PGPASSWORD`, which libpq would use, is refused with the file to use instead, at
    /// the option or key that chose PostgreSQL; an empty or absent one, or an SQLite log, is no matter.
    @Test(arguments: [
        (["PGPASSWORD": "hunter2"], ["--store-url", "postgresql:///segue"], "--store-url"),
        (["PGPASSWORD": ""], ["--store-url", "postgresql:///segue"], nil),
        ([:], ["--store-url", "postgresql:///segue"], nil),
        (["PGPASSWORD": "hunter2"], [], nil),
    ])
    func aPasswordInTheEnvironmentIsRefused(environment: [String: String], arguments: [String], refusedAt: String?) {
        do {
            _ = try DaemonConfig.parse(arguments: arguments, environment: environment)
            #expect(refusedAt == nil)
        } catch {
            #expect(error.location == refusedAt)
            #expect(
                error.message.hasPrefix("PGPASSWORD is set in segued's environment")
                    && !error.message.contains("hunter2"))
            #expect(error.message.contains("passfile= or PGPASSFILE (mode 0600"))
        }
    }
}
