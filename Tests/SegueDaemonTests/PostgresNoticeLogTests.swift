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

/// The writer's reconnections as lines of segued's log (`StoreOpening.reconnectionLog`).
@Suite struct PostgresReconnectionLogTests {
    static let server = "PostgreSQL at dbname=segue"

    @Test(arguments: [
        (
            PostgresReconnection(lostFor: .milliseconds(52)), 0, 0,
            "The writer's session to PostgreSQL at dbname=segue was lost; connected again after 52 ms."
        ),
        (
            PostgresReconnection(lostFor: .milliseconds(3), readBack: .init(seqs: 8...11, commands: 2, stored: true)),
            0, 0,
            "The writer's session to PostgreSQL at dbname=segue was lost; connected again after 3 ms. The batch it "
                + "was committing (seqs 8–11, 2 command(s)) was read back: the server had committed it."
        ),
        (
            PostgresReconnection(lostFor: .seconds(2), readBack: .init(seqs: 5...5, commands: 1, stored: false)),
            4, 1,
            "The writer's session to PostgreSQL at dbname=segue was lost; connected again after 2000 ms. The batch "
                + "it was committing (seq 5, 1 command(s)) was read back: the server had not committed it. 4 more "
                + "reconnection(s) since the last such line, 1 with a batch read back as committed."
        ),
    ])
    func eachReconnectionSaysWhatWasReadBack(
        reconnection: PostgresReconnection, held: Int, heldCommitted: Int64, line: String
    ) {
        #expect(
            StoreOpening.reconnectionLine(reconnection, server: Self.server, held: held, heldCommitted: heldCommitted)
                == line)
    }

    /// A flapping link logs a line, then holds the next ones back to be counted in a later line.
    @Test func aFlappingLinkIsNotALinePerCut() {
        let buffer = LogBuffer()
        let logger = Logger(label: "segued", threshold: LogThreshold(.trace), handler: buffer.handler)
        let log = StoreOpening.reconnectionLog(Self.server, logger: logger)
        for _ in 0..<5 { log(PostgresReconnection(lostFor: .milliseconds(1))) }
        #expect(
            buffer.lines == [
                "<5>segued: The writer's session to PostgreSQL at dbname=segue was lost; connected again after 1 ms.\n"
            ])
    }
}
