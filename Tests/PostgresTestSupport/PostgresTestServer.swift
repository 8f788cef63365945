import Foundation
import SeguePostgres

/// A real PostgreSQL 15 server that a test run starts for itself (`scripts/pg-test-server.sh`):
/// initdb into a temporary directory, a Unix socket only, run as a non-root user, stopped and
/// deleted when the tests end, by a watchdog even when the test process dies.
///
/// `shared` is one server for the whole run, where each test gets a schema of its own
/// (`makeSchema`); a test that stops or kills its server starts a private one (`start()`).
/// Where postgresql-15 is not installed, `unavailableReason` says so and the tests skip.
package final class PostgresTestServer: @unchecked Sendable {
    package let directory: String
    package let port: Int
    private let lock = NSLock()
    private var removed = false

    /// The shared server, started at first use; nil when it could not be (see `unavailableReason`).
    package static var shared: PostgresTestServer? { sharedStart.server }
    /// Why there is no server (postgresql-15 missing, or it failed to start); nil when there is one.
    package static var unavailableReason: String? { sharedStart.reason }

    private static let sharedStart: (server: PostgresTestServer?, reason: String?) = {
        do {
            let server = try PostgresTestServer.start()
            atexit { PostgresTestServer.shared?.remove() }
            return (server, nil)
        } catch {
            return (nil, "\(error)")
        }
    }()

    /// Starts a server of its own in a new temporary directory.
    package static func start() throws -> PostgresTestServer {
        let directory = NSTemporaryDirectory() + "segue-pg-" + UUID().uuidString.prefix(8).lowercased()
        let output = try script(["start", directory, "--watch", "\(getpid())"])
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("PGPORT=") }),
            let port = Int(line.dropFirst("PGPORT=".count))
        else { throw Failure(message: "pg-test-server.sh printed no port: \(output)") }
        return PostgresTestServer(directory: directory, port: port)
    }

    private init(directory: String, port: Int) {
        self.directory = directory
        self.port = port
    }

    deinit { remove() }

    /// The conninfo of `database` as the superuser `segue`, with extra `key=value` settings.
    package func conninfo(database: String = "postgres", _ extra: String = "") -> String {
        "host=\(directory) port=\(port) user=segue dbname=\(database)" + (extra.isEmpty ? "" : " " + extra)
    }

    /// A new, empty schema, and the conninfo whose sessions use it (`search_path`): a log of its own.
    package func makeSchema() throws -> (name: String, conninfo: String) {
        let name = "t_" + UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: "")
        try admin().execute("CREATE SCHEMA \(name)")
        return (name, conninfo(database: "postgres", "options='-c search_path=\(name)'"))
    }

    /// A superuser connection to the `postgres` database, for set-up and fault injection.
    package func admin(database: String = "postgres") throws -> PostgresConnection {
        try PostgresConnection(ConnectionSettings(conninfo: conninfo(database: database)))
    }

    /// `pg_ctl stop` with `mode` (`immediate` is a crash: no shutdown checkpoint, recovery at start).
    package func stop(mode: String = "fast") throws { _ = try Self.script(["stop", directory, mode]) }

    /// Starts the stopped server again, on the same directory and socket.
    package func restart() throws { _ = try Self.script(["restart", directory]) }

    /// Stops the server and deletes its directory; idempotent.
    package func remove() {
        let first = lock.withLock {
            defer { removed = true }
            return !removed
        }
        if first { _ = try? Self.script(["remove", directory]) }
    }

    /// `scripts/pg-test-server.sh` next to this package's sources.
    static var scriptPath: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/pg-test-server.sh").path
    }

    /// Runs the script; its stdout, or a `Failure` with its stderr.
    ///
    /// Through `posix_spawn` and `waitpid` rather than Foundation's `Process`, whose exit monitoring
    /// was seen to miss the script's exit (left a zombie, `waitUntilExit` never returned) when the
    /// script leaves a background watchdog running.
    static func script(_ arguments: [String]) throws -> String {
        let output = NSTemporaryDirectory() + "segue-pg-script-" + UUID().uuidString
        defer {
            unlink(output + ".out")
            unlink(output + ".err")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output + ".out", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, output + ".err", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        SpawnActions.closeInherited(&actions)
        let argv = (["/bin/bash", scriptPath] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/bash", &actions, nil, argv, environ)
        guard spawned == 0 else { throw Failure(message: "Cannot run \(scriptPath): errno \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let stdout = (try? String(contentsOfFile: output + ".out", encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOfFile: output + ".err", encoding: .utf8)) ?? ""
        // WIFEXITED && WEXITSTATUS == 0
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw Failure(message: stderr.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return stdout
    }

    package struct Failure: Error, CustomStringConvertible {
        package var message: String
        package var description: String { message }
    }
}
