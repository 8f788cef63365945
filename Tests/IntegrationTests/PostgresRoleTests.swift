import Foundation
import SegueCore
import Testing

/// What a PostgreSQL role must be allowed is looked at before anything is served, by `--check-config`
/// and by the start, against a real server; and the CLI takes a keyword conninfo for the database
/// it is, never for a local path.
@Suite(.ownThreads) struct PostgresRoleTests {
    /// Tables made by their owner, then a role given them with one grant short: without `UPDATE` on
    /// `snapshots` segued used to say Ready and freeze every transition (no frame lease).
    @Test(.choosesItsBackends) func aRoleMissingAGrantIsRefusedByTheCheckAndTheStart() throws {
        let (admin, role, roleURL) = try StoreBackend.tablesAndRole(
            granting: "GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA public TO ROLE; GRANT DELETE ON snapshots TO ROLE;")
        let lacks =
            "lacks UPDATE on snapshots, which segued needs (docs/operations.md, \"Setting up PostgreSQL\"): "
            + "GRANT UPDATE ON snapshots TO \(role); (or have that role own the database)."

        let check = try Self.checkConfig(roleURL)
        #expect(check.status == 78, "\(check.output)")
        #expect(check.output.contains("The role \(role) at ") && check.output.contains(lacks), "\(check.output)")
        let dir = DaemonProcess.temporaryDirectory()
        let start = try Reliability.run(
            DaemonProcess.binary("segued"),
            [
                "--data-dir", dir, "--command", "tcp://127.0.0.1:*", "--publish", "tcp://127.0.0.1:*", "--store-url",
                roleURL,
            ])
        #expect(start.status == 1, "\(start.output)")
        #expect(start.output.contains(lacks), "\(start.output)")
        #expect(!start.output.contains("Ready:"), "\(start.output)")

        try admin.execute("GRANT UPDATE ON snapshots TO \(role)")
        let granted = try Self.checkConfig(roleURL)
        #expect(granted.status == 0, "\(granted.output)")
        #expect(!granted.output.contains("may not DELETE"), "\(granted.output)")
        // DELETE on snapshots is not needed: without it the check warns, as the start does.
        try admin.execute("REVOKE DELETE ON snapshots FROM \(role)")
        let withoutDelete = try Self.checkConfig(roleURL)
        #expect(withoutDelete.status == 0, "\(withoutDelete.output)")
        #expect(
            withoutDelete.output.contains("segued: warning: The role may not DELETE from snapshots"),
            "\(withoutDelete.output)")
    }

    /// A database with an `events` table segued did not make: the check refuses it as the start does.
    @Test(.choosesItsBackends) func theCheckRefusesAnEventsTableThatIsNotSegues() throws {
        let url = try StoreBackend.newDatabase()
        let name = String(url.dropFirst("postgresql:///".count).prefix { $0 != "?" })
        try StoreBackend.server().admin(database: name).execute("CREATE TABLE events (x int)")
        let check = try Self.checkConfig(url)
        #expect(check.status == 78, "\(check.output)")
        #expect(
            check.output.contains("has an events table but no schema_version table: it is not a Segue event store"),
            "\(check.output)")
    }

    /// A database whose `public` schema the role may not create in (PostgreSQL 15's default for a
    /// role that does not own the database): the check says so before the first start fails on it.
    @Test(.choosesItsBackends) func aRoleThatCannotCreateTheTablesIsToldByTheCheck() throws {
        let server = try StoreBackend.server()
        let ownerURL = try StoreBackend.newDatabase()
        let role = Self.newRole()
        try server.admin().execute("CREATE ROLE \(role) LOGIN")
        let check = try Self.checkConfig(ownerURL.replacingOccurrences(of: "user=segue", with: "user=\(role)"))
        #expect(check.status == 78, "\(check.output)")
        #expect(
            check.output.contains(
                "lacks CREATE on schema public, which segued needs (docs/operations.md, \"Setting up PostgreSQL\"): "
                    + "GRANT CREATE ON SCHEMA public TO \(role);"), "\(check.output)")
    }

    /// `PGPASSWORD` in the environment: refused by the check, as by the start.
    @Test(.choosesItsBackends) func theCheckRefusesAPasswordInTheEnvironment() throws {
        let url = try StoreBackend.newDatabase()
        let check = try Self.checkConfig(url, environment: ["PGPASSWORD": "not-needed-here"])
        #expect(check.status == 78, "\(check.output)")
        #expect(check.output.contains("PGPASSWORD is set in segued's environment"), "\(check.output)")
        #expect(!check.output.contains("not-needed-here"), "\(check.output)")
    }

    /// A keyword conninfo, the form of the docs' `store.conninfo`, and a URL with its scheme in capitals
    /// are the database, as segued takes them: taken for paths, `import` made a local data dir of
    /// that name, imported there and reported success.
    @Test(.choosesItsBackends) func theCLITakesAKeywordConninfoForItsDatabase() throws {
        let server = try StoreBackend.server()
        let source = try DaemonProcess(store: .sqlite)
        try TestClient(endpoint: source.commandEndpoint).ok(["cmd": "create", "navigator": "main", "root": "Home"])
        #expect(source.stop() == 0)
        let file = source.dataDir + "/log.jsonl"
        #expect(try Cli.run(["export", "--data-dir", source.dataDir, "-o", file]).status == 0)

        let work = DaemonProcess.temporaryDirectory()
        for form in ["keyword", "capitals"] {
            let url = try StoreBackend.newDatabase()
            let database = String(url.dropFirst("postgresql:///".count).prefix { $0 != "?" })
            let place =
                form == "keyword"
                ? "dbname=\(database) host=\(server.directory) port=\(server.port) user=segue"
                : "POSTGRESQL" + url.dropFirst("postgresql".count)
            // From a directory of its own, where a data dir taken for a path would appear.
            let imported = try ChildProcess.run([
                "/bin/sh", "-c", #"cd "$1" && exec "$2" import --data-dir "$3" "$4""#, "sh", work, Cli.binary, place,
                file,
            ])
            #expect(imported.status == 0, "\(form): \(imported.stderr)")
            let export = try Cli.run(["export", "--data-dir", url])
            #expect(export.stdout.contains(#""navigator":"main""#), "\(form): \(export.stdout)")
            let left = try FileManager.default.contentsOfDirectory(atPath: work)
            #expect(left.isEmpty, "\(form): a local data dir was made: \(left)")
        }
    }

    static func newRole() -> String {
        "r_" + UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: "")
    }

    static func checkConfig(_ url: String, environment: [String: String] = [:]) throws -> (
        status: Int32, output: String
    ) {
        try Reliability.run(
            DaemonProcess.binary("segued"),
            [
                "--check-config", "--data-dir", DaemonProcess.temporaryDirectory(), "--command", "tcp://127.0.0.1:*",
                "--publish", "tcp://127.0.0.1:*", "--store-url", url,
            ], environment: environment)
    }
}
