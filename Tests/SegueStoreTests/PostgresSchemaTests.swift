import Foundation
import PostgresTestSupport
import SegueCore
import Synchronization
import Testing

@testable import SeguePostgres
@testable import SegueStore

/// The PostgreSQL schema: what the server refuses, how it is versioned, who may write.
@Suite struct PostgresSchemaTests {
    /// The log's tables through a superuser session on the test's schema.
    static func admin(_ place: LogPlace) throws -> PostgresConnection {
        let connection = try LogPlace.server().admin()
        try connection.execute("SET search_path = \(place.schema!)")
        return connection
    }

    @Test(arguments: [
        "UPDATE events SET type = 'x' WHERE seq = 1",
        "DELETE FROM events WHERE seq = 1",
        "DELETE FROM events WHERE false",
        "TRUNCATE events",
    ])
    func theSchemaRefusesToChangeOrRemoveEvents(sql: String) throws {
        let place = try LogPlace(.postgres)
        var numberer = Numberer()
        let store = try place.open()
        try store.append(numberer.unit("main", count: 2))
        let admin = try Self.admin(place)
        do {
            try admin.execute(sql)
            Issue.record("\(sql) succeeded")
        } catch {
            #expect(error.message == "events are append-only")
            #expect(error.sqlState == SQLState.restrictViolation)
            #expect(StoreError(kind: .postgres, sqlState: error.sqlState, message: "").code == .conflict)
        }
        #expect(try admin.query("SELECT count(*)::bigint FROM events").int64(0, 0) == 2)
        #expect(try store.integrityCheck() == [])
    }

    @Test func openRecordsTheSchemaVersionAndRefusesANewerDatabase() throws {
        let place = try LogPlace(.postgres)
        let store = try PostgresEventStore(conninfo: place.conninfo!)
        #expect(try store.schemaVersion() == PostgresSchema.currentVersion)
        #expect(store.migration == nil)
        store.close()
        // Reopening runs no migration twice.
        _ = try PostgresEventStore(conninfo: place.conninfo!)
        let admin = try Self.admin(place)
        let versions = try admin.query("SELECT count(*)::bigint FROM schema_version").int64(0, 0)
        #expect(versions == PostgresSchema.currentVersion)
        try admin.execute("INSERT INTO schema_version (version) VALUES (99)")
        do {
            _ = try PostgresEventStore(conninfo: place.conninfo!)
            Issue.record("a database of schema version 99 was opened")
        } catch {
            #expect(error.kind == .invalidData)
            #expect(error.message.contains("schema version 99, newer than this build's"))
        }
    }

    /// Sessions making the schema of a new database at the same moment (daemons started together):
    /// one makes it and the others find it made. `CREATE TABLE IF NOT EXISTS` alone let the second
    /// fail on the catalog's unique index.
    @Test func sessionsMakingTheSchemaAtOnceAllSucceed() throws {
        for round in 1...5 {
            let place = try LogPlace(.postgres)
            let settings = try ConnectionSettings(conninfo: place.conninfo!)
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 4) { index in
                do {
                    let connection = try PostgresConnection(settings)
                    _ = try PostgresSchema.migrate(connection, location: "session \(index)")
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            #expect(failures.withLock { $0 } == [], "round \(round)")
            let versions = try PostgresConnection(settings).query("SELECT count(*)::bigint FROM schema_version").int64(
                0, 0)
            #expect(versions == PostgresSchema.currentVersion, "round \(round)")
        }
    }

    /// A log written at version 2 or 3 moves to the current version: no CHECKs on seq and revision
    /// (3), the JSON columns as text (4). Its rows keep every byte, read back as before and the log
    /// takes appends.
    @Test(arguments: [2, 3])
    func anOlderLogMovesToTheCurrentVersionKeepingEveryByte(version: Int) throws {
        let place = try LogPlace(.postgres)
        let admin = try Self.admin(place)
        try PostgresSchema.createVersionTableIfMissing(admin, location: "test")
        for migration in PostgresSchema.migrations.prefix(version) { try admin.execute(migration) }
        try admin.execute("INSERT INTO schema_version SELECT generate_series(1, \(version))")
        // As `json` stored them: the text as written, spaces and escapes included.
        let data = [#"{"transition":1, "note":"ü \"q\"\n"}"#, #"{"transition":1}"#]
        let state = #"{"stack": [{"id":"s1","name":"Home"}]}"#
        let reply = #"{"ok":true,"seq":2}"#
        try admin.execute(
            """
            INSERT INTO events VALUES
                (1, 'main', 1, 'transition.started', 1, 1001, 1700000000000000001, 'c1', '\(data[0])'),
                (2, 'main', 2, 'transition.completed', 1, 1002, 1700000000000000002, 'c1', '\(data[1])');
            INSERT INTO snapshots VALUES ('main', 2, 2, '\(state)');
            INSERT INTO commands VALUES ('c1', 'main', 2, '\(reply)', 42);
            """)
        let checks = "SELECT count(*)::bigint FROM pg_constraint WHERE conrelid = 'events'::regclass AND contype = 'c'"
        #expect(try admin.query(checks).int64(0, 0) == (version < 3 ? 2 : 0))

        // `segued --check-config` tells what the next start will do, and the start says it again.
        let settings = try ConnectionSettings(conninfo: place.conninfo!)
        let check = try PostgresStoreCheck(settings: settings)
        let rewrite = try #require(check.rewrite)
        #expect(check.schemaVersion == Int64(version) && rewrite.bytes > 0, "\(rewrite)")
        #expect(
            check.summary.hasPrefix(
                "schema version \(version); segued migrates it to 4 at its next start, "
                    + "rewriting the log's tables (\(rewrite.description)) while it serves nothing"), "\(check.summary)"
        )
        var upgrades: [PostgresSchemaUpgrade] = []
        let store = try PostgresEventStore(settings: settings, willMigrate: { upgrades.append($0) })
        #expect(upgrades == [PostgresSchemaUpgrade(from: Int64(version), to: 4, rewrite: rewrite)])
        #expect(try store.schemaVersion() == 4)
        #expect(store.migration?.from == Int64(version) && store.migration?.to == 4)
        #expect(try PostgresStoreCheck(settings: settings).summary == "schema version 4, current")
        #expect(try admin.query(checks).int64(0, 0) == 0)
        let types = try admin.query(
            """
            SELECT table_name || '.' || column_name || ' ' || data_type FROM information_schema.columns
            WHERE table_schema = current_schema() AND column_name IN ('data', 'state', 'reply') ORDER BY 1
            """)
        #expect(
            try (0..<types.rowCount).map { try types.string($0, 0) } == [
                "commands.reply text", "events.data text", "snapshots.state text",
            ])
        let kept = try admin.query("SELECT data FROM events ORDER BY seq")
        #expect(try (0..<kept.rowCount).map { try kept.string($0, 0) } == data)
        #expect(try admin.query("SELECT state FROM snapshots").string(0, 0) == state)
        #expect(try admin.query("SELECT reply FROM commands").string(0, 0) == reply)

        #expect(try store.allEvents().map(\.data) == [["transition": 1, "note": "ü \"q\"\n"], ["transition": 1]])
        #expect(try store.latestSnapshots().map(\.state) == [["stack": [["id": "s1", "name": "Home"]]]])
        #expect(try store.reply(forCommand: "c1") == ["ok": true, "seq": 2])
        var numberer = Numberer(seq: 2, revisions: ["main": 2])
        try store.append(numberer.unit("main", count: 2, commandID: "c2", reply: ["ok": true]))
        #expect(try store.allEvents().count == 4)
        #expect(try store.integrityCheck() == [])
    }

    /// A database segued has not used yet has nothing to rewrite, and the check says so; a log of
    /// any version before 4 is rewritten on the way.
    @Test func aNewDatabaseHasNothingToRewrite() throws {
        let place = try LogPlace(.postgres)
        let settings = try ConnectionSettings(conninfo: place.conninfo!)
        let new = try PostgresStoreCheck(settings: settings)
        #expect(new.schemaVersion == 0 && new.rewrite == nil)
        #expect(new.summary == "no Segue schema yet; segued creates version 4 at its first start")
        #expect(PostgresSchemaUpgrade.rewrites(from: 3) && PostgresSchemaUpgrade.rewrites(from: 1))
        #expect(!PostgresSchemaUpgrade.rewrites(from: 0) && !PostgresSchemaUpgrade.rewrites(from: 4))
    }

    @Test(
        arguments: [
            (12, "1 kB"), (999_000, "999 kB"), (1_000_000, "1 MB"), (421_300_000, "421 MB"),
        ] as [(Int64, String)])
    func tableSizesReadAsOperatorsWriteThem(bytes: Int64, text: String) {
        #expect(PostgresSchemaUpgrade.TableSizes(bytes: bytes, events: nil).description == text)
        #expect(
            PostgresSchemaUpgrade.TableSizes(bytes: bytes, events: 1_234_567).description
                == text + ", about 1,234,567 events")
    }

    /// A role that does not own the tables, granted just what docs/operations.md lists ("Setting up
    /// PostgreSQL"), opens a migrated log and appends to it: opening took a lock on `schema_version`
    /// that needs UPDATE, which the docs do not grant.
    @Test func aRoleWithTheDocumentedGrantsOpensAndAppends() throws {
        let place = try LogPlace(.postgres)
        let schema = try #require(place.schema)
        do { _ = try place.open() }  // the tables, made by their owner
        let role = "r_" + UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: "")
        try Self.admin(place).execute(
            """
            CREATE ROLE \(role) LOGIN;
            GRANT USAGE ON SCHEMA \(schema) TO \(role);
            GRANT SELECT, INSERT ON \(schema).events, \(schema).commands, \(schema).schema_version TO \(role);
            GRANT SELECT, INSERT, UPDATE, DELETE ON \(schema).snapshots TO \(role);
            """)
        let store = try PostgresEventStore(conninfo: try #require(place.conninfo) + " user=\(role)", durability: .full)
        var numberer = Numberer()
        try store.append(numberer.unit("main", commandID: "c1", reply: ["ok": true]))
        #expect(store.lastSeq == 1)
        #expect(try store.reply(forCommand: "c1") == ["ok": true])
    }

    @Test func aDatabaseWithSomeoneElsesEventsTableIsRefused() throws {
        let place = try LogPlace(.postgres)
        try Self.admin(place).execute("CREATE TABLE events (id int)")
        do {
            _ = try PostgresEventStore(conninfo: place.conninfo!)
            Issue.record("a foreign events table was taken for a log")
        } catch {
            #expect(error.message.contains("not a Segue event store"))
        }
    }

    @Test func aSecondWriterIsRefusedNamingTheFirst() throws {
        let place = try LogPlace(.postgres)
        let first = try PostgresEventStore(conninfo: place.conninfo!)
        do {
            _ = try PostgresEventStore(conninfo: place.conninfo!)
            Issue.record("two writers opened one log")
        } catch {
            #expect(error.kind == .inUse)
            #expect(error.code == .unavailable)
            #expect(error.message.contains("PostgreSQL backend pid"))
        }
        first.close()
        // Closing gives the lock up.
        let second = try PostgresEventStore(conninfo: place.conninfo!)
        second.close()
    }

    /// Read-only sessions are refused, with the fix for where the setting is: a role's setting wins
    /// over the database's, so "ALTER DATABASE" would not help a role that has one.
    @Test(arguments: [
        ("database", "It is set for the database: ALTER DATABASE … SET default_transaction_read_only = off."),
        ("role", "It is set for the role: ALTER ROLE … SET default_transaction_read_only = off."),
    ])
    func readOnlySessionsAreRefusedWithTheirFix(setOn: String, fix: String) throws {
        let server = try LogPlace.server()
        let name = "ro_" + UUID().uuidString.prefix(8).lowercased()
        let admin = try server.admin()
        try admin.execute("CREATE DATABASE \(name)")
        var conninfo = server.conninfo(database: name)
        if setOn == "database" {
            try admin.execute("ALTER DATABASE \(name) SET default_transaction_read_only = on")
        } else {
            try admin.execute("CREATE ROLE \(name) LOGIN")
            try admin.execute("ALTER ROLE \(name) SET default_transaction_read_only = on")
            conninfo = conninfo.replacingOccurrences(of: "user=segue", with: "user=\(name)")
        }
        do {
            _ = try PostgresEventStore(conninfo: conninfo)
            Issue.record("a read-only \(setOn) was opened for writing")
        } catch {
            #expect(error.sqlState == SQLState.readOnlyTransaction)
            #expect(error.code == .unavailable)
            #expect(error.message.contains("are read-only (transaction_read_only is on)"), "\(error.message)")
            #expect(error.message.hasSuffix(fix), "\(error.message)")
        }
        try admin.execute("DROP DATABASE \(name)")
        if setOn == "role" { try admin.execute("DROP ROLE \(name)") }
    }

    /// A refused connection gets the advice for its reason, not "reconnects by itself": segued
    /// stops on these at once.
    @Test(arguments: [
        (SQLState.invalidPassword, true, "Check the role and the password file"),
        (SQLState.invalidCatalogName, true, "Create the database, or name an existing one"),
        (SQLState.connectionFailure, true, "segued reconnects by itself once the server is reachable."),
        // No session was made: what to check, for the tools as for segued's start.
        (SQLState.unableToConnect, false, "Check that the server runs and takes connections at that address"),
        ("08003", false, "segued reconnects by itself once the server is reachable."),
        (SQLState.invalidParameterValue, false, "Correct that value in the connection string"),
    ])
    func adviceFollowsTheReason(sqlState: String, lost: Bool, advice: String) {
        #expect(StoreError.advice(forSQLState: sqlState, connectionLost: lost)?.contains(advice) == true)
    }

    /// Segue's own refusal of a password in the conninfo says what to do; no advice follows it that
    /// would send the reader to check a password file it was just told to write.
    @Test func aPasswordRefusalCarriesNoAdviceAfterIt() throws {
        do {
            _ = try PostgresEventLog(conninfo: "postgresql://segue:hunter2@db.example/segue")
            Issue.record("a password in the URL was taken")
        } catch {
            #expect(error.message.hasSuffix("one line host:port:dbname:user:password."), "\(error.message)")
            #expect(!error.message.contains("hunter2"))
        }
    }

    /// libpq's own check of an option's value fails before anything is tried: a fault waiting
    /// cannot clear (the open does not retry it), not the server out of reach.
    @Test(arguments: [
        (#"invalid sslmode value: "bogus""#, SQLState.invalidParameterValue),
        (#"invalid integer value "abc" for connection option "port""#, SQLState.invalidParameterValue),
        (
            "connection to server on socket \"/tmp/.s.PGSQL.5432\" failed: No such file or directory",
            SQLState.unableToConnect
        ),
        ("FATAL:  database \"x\" does not exist", SQLState.invalidCatalogName),
    ])
    func aConnectFailureGetsTheStateOfItsReason(message: String, state: String) {
        #expect(PostgresConnection.sqlState(ofConnectFailure: message) == state)
        #expect(
            PostgresOpenRetry.mayClear(StoreError(kind: .postgres, sqlState: state, message: message))
                == (state == SQLState.unableToConnect))
    }

    /// libpq's refusal ("…failed: Connection refused\n\tIs the server running on that host and
    /// accepting TCP/IP connections?") reads as sentences on one line, then the advice.
    @Test func aRefusedConnectionReadsAsOneLine() throws {
        do {
            _ = try PostgresConnection(ConnectionSettings(conninfo: "host=127.0.0.1 port=1 dbname=x"))
            Issue.record("port 1 took a connection")
        } catch {
            let message = StoreError(error, doing: "Cannot open the event store").message
            #expect(!message.contains("\t") && !message.contains("\n") && !message.contains("  "), "\(message)")
            #expect(!message.contains("?.") && !message.contains("segued"), "\(message)")
            #expect(message.contains("Connection refused. Is the server running"), "\(message)")
            #expect(message.hasSuffix("(host, port, pg_hba.conf)."), "\(message)")
        }
    }

    /// libpq's lines, and a statement written over several lines, become one line of segued's log.
    @Test(arguments: [
        (
            "failed: No such file or directory\n\tIs the server running locally?\n",
            "failed: No such file or directory. Is the server running locally?"
        ),
        ("FATAL:  role \"x\" does not exist\n", "FATAL: role \"x\" does not exist"),
        (
            "server closed the connection unexpectedly\n\tThis probably means the server terminated abnormally\n",
            "server closed the connection unexpectedly. This probably means the server terminated abnormally"
        ),
    ])
    func libpqLinesReadAsSentences(text: String, line: String) {
        #expect(PostgresError.oneLine(text) == line)
    }

    @Test(arguments: [
        ("CREATE TABLE t (\n    a int\n)", "CREATE TABLE t ( a int )"),
        // A comment would comment out the rest once on one line; spaces in a literal stay.
        ("SELECT 1 -- why\n  FROM t WHERE a = 'x  -- y'", "SELECT 1 FROM t WHERE a = 'x  -- y'"),
        ("\n  SELECT 1\n\n", "SELECT 1"),
    ])
    func aFailedStatementIsShownOnOneLine(sql: String, line: String) {
        let error = PostgresError(sqlState: "42P07", message: "exists", statement: sql)
        #expect(error.description == "exists (SQLSTATE 42P07) [\(line)]")
        #expect(StoreError(error).description.hasSuffix("[\(line)]"))
    }

    /// Each row: a conninfo with a secret, the secret that must appear in no message, and what the
    /// refusal says to do instead. The client key's passphrase is a secret as well.
    @Test(arguments: [
        ("host=/run/postgresql dbname=segue password=hunter2", "hunter2", "password file"),
        ("postgresql://segue:hunter2@db.example/segue", "hunter2", "password file"),
        ("host=/run/postgresql dbname=segue sslkey=/k sslpassword=KeyPass123", "KeyPass123", "without a passphrase"),
    ])
    func aPasswordInTheConninfoIsRefusedWithoutBeingRepeated(conninfo: String, secret: String, instead: String) throws {
        do {
            _ = try ConnectionSettings(conninfo: conninfo)
            Issue.record("a conninfo with a password was accepted")
        } catch {
            #expect(!error.description.contains(secret))
            #expect(error.message.contains(instead), "\(error.message)")
        }
        do {
            _ = try PostgresEventStore(conninfo: conninfo)
        } catch {
            #expect(!error.description.contains(secret))
        }
    }

    /// A connection string libpq cannot parse is quoted by libpq (a URL whole, a token it could not
    /// decode): the secret in it is masked before the message goes anywhere. Each row: the text and
    /// its secret.
    @Test(arguments: [
        ("postgresql://segueop:Sup3rS3cret@[::1/seguedb", "Sup3rS3cret"),
        ("postgresql://segueop:s3cret%PW@/seguedb", "s3cret%PW"),
        ("postgresql://segueop@/seguedb?password=hunter2&port=x%zz", "hunter2"),
        ("host=/run/postgresql password='open sesame' dbname='unterminated", "open sesame"),
    ])
    func anUnparseableConninfoIsRefusedWithoutItsSecret(conninfo: String, secret: String) throws {
        do {
            _ = try ConnectionSettings(conninfo: conninfo)
            Issue.record("\(conninfo) was accepted")
        } catch {
            #expect(error.message.hasPrefix("The PostgreSQL connection string is not valid: "), "\(error.message)")
            #expect(!error.description.contains(secret), "\(error.description)")
            #expect(error.sqlState == SQLState.invalidParameterValue, "nothing was tried: not a connection failure")
        }
    }

    @Test func theRedactedConninfoShowsWhereButNoSecrets() throws {
        let settings = try ConnectionSettings(conninfo: "host=/run/postgresql dbname=segue sslkey=/k sslcert=/c")
        // In libpq's order of keywords, whatever the conninfo's.
        #expect(settings.redacted == "dbname=segue host=/run/postgresql sslcert=<redacted> sslkey=<redacted>")
        #expect(settings.value("dbname") == "segue")
    }
}
