import Foundation
import SegueCore
import SeguePostgres
import SegueWire

/// `segue-bench --store postgres`: segued on PostgreSQL against the raw limit on the same server in
/// the same run, next to the SQLite figures of the `latency` and `throughput` sections.
///
/// The limit of a durable push is what the SQLite rows use with PostgreSQL's durable write in place
/// of `fdatasync`: the raw ZeroMQ round trip plus one `INSERT` committed in one pipelined round trip
/// through libpq with `synchronous_commit = on` (`PostgresStoreBench.timeRawInsert`: one round trip
/// to the server, one WAL flush), both sampled between the commands.
enum PostgresDaemonBench {
    /// The server measured on: `--store-url`'s, or a throwaway one (scripts/pg-test-server.sh).
    final class Server {
        /// key=value conninfo of the database (libpq's parsing of the URL, re-spelled), for the raw side.
        let conninfo: String
        private let url: String
        private let directory: String?

        init(url: String?, scratch: String) throws {
            if let url {
                self.url = url
                directory = nil
                let settings = try ConnectionSettings(conninfo: url)
                conninfo = settings.parameters.map { "\($0.keyword)='\(Self.escape($0.value))'" }.joined(separator: " ")
                return
            }
            let directory = scratch + "/postgres"
            let script = try Self.script()
            let output = try Self.run(["/bin/bash", script, "start", directory, "--watch", String(getpid())])
            guard let port = output.split(separator: "\n").first(where: { $0.hasPrefix("PGPORT=") })?.dropFirst(7)
            else { throw BenchError("pg-test-server.sh printed no port: \(output)") }
            self.directory = directory
            self.url = "postgresql:///postgres?host=\(directory)&port=\(port)&user=segue"
            conninfo = "host=\(directory) port=\(port) user=segue dbname=postgres"
        }

        /// A new schema of its own, and the daemon's `--store-url` using it.
        func newLog(_ name: String) throws -> [String] {
            let schema = "segue_bench_\(getpid())_" + name.replacingOccurrences(of: "-", with: "_")
            try PostgresDaemonBench.connect(conninfo).execute("CREATE SCHEMA \(schema)")
            return ["--store-url", url + (url.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(schema)"]
        }

        /// Drops the schemas made, and a throwaway server.
        func remove() {
            if let directory {
                _ = try? Server.run(["/bin/bash", (try? Server.script()) ?? "", "remove", directory])
                return
            }
            guard let admin = try? PostgresDaemonBench.connect(conninfo),
                let result = try? admin.query(
                    "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'segue_bench_\(getpid())_%'")
            else { return }
            for row in 0..<result.rowCount {
                if let name = try? result.string(row, 0) { _ = try? admin.execute("DROP SCHEMA \(name) CASCADE") }
            }
        }

        static func escape(_ value: String) -> String {
            value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
        }

        /// scripts/pg-test-server.sh of the checkout this segue-bench was built in.
        static func script() throws -> String {
            var directory = URL(fileURLWithPath: try DaemonProcess.binary()).deletingLastPathComponent()
            while directory.path != "/" {
                let candidate = directory.appendingPathComponent("scripts/pg-test-server.sh").path
                if FileManager.default.fileExists(atPath: candidate) { return candidate }
                directory = directory.deletingLastPathComponent()
            }
            throw BenchError("No scripts/pg-test-server.sh above segue-bench; give --store-url.")
        }

        /// Runs the script to its end, through `posix_spawn` and `waitpid` with its output in a file:
        /// Foundation's `Process` was seen to miss the exit of a script that leaves a background
        /// watchdog running (as `start --watch` does), and a pipe would stay open with it.
        static func run(_ arguments: [String]) throws -> String {
            let path = NSTemporaryDirectory() + "segue-bench-pg-\(getpid()).out"
            defer { unlink(path) }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
            let argv = arguments.map { strdup($0) } + [nil]
            defer { for argument in argv { free(argument) } }
            var pid: pid_t = 0
            guard posix_spawn(&pid, arguments[0], &actions, nil, argv, environ) == 0 else {
                throw BenchError("Cannot run \(arguments[0]).")
            }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            guard status == 0 else { throw BenchError("\(arguments[1...].joined(separator: " ")): \(text)") }
            return text
        }
    }

    /// A connection of the bench's own (the raw limit, schemas made and dropped). The server's
    /// NOTICEs are what the bench expects (`DROP SCHEMA … CASCADE` lists every object it drops) and
    /// are not shown; anything graver goes to stderr, apart from the figures.
    static func connect(_ conninfo: String) throws(PostgresError) -> PostgresConnection {
        var settings = try ConnectionSettings(conninfo: conninfo, applicationName: "segue-bench")
        settings.notices = PostgresNoticeHandler { notice in
            guard notice.severity != "NOTICE" else { return }
            FileHandle.standardError.write(Data("PostgreSQL \(notice.severity): \(notice)\n".utf8))
        }
        return try PostgresConnection(settings)
    }

    /// A connection that times the raw one-row `INSERT` and its commit (`PostgresStoreBench.timeRawInsert`)
    /// on a table of its own schema.
    static func rawProbe(_ server: Server) throws -> (Int) throws -> Int64 {
        let schema = "segue_bench_\(getpid())_raw"
        let connection = try connect(server.conninfo)
        try connection.execute(
            "CREATE SCHEMA \(schema); SET search_path = \(schema); SET synchronous_commit = on; "
                + "CREATE TABLE raw_insert (seq bigint PRIMARY KEY, data json)")
        return { round in try PostgresStoreBench.timeRawInsert(connection, seq: Int64(round + 1)) }
    }

    static func figures(
        server: Server, base: String, context: ZMQContext, options: BenchOptions, echoThroughput: Double
    ) throws -> [Figure] {
        var figures: [Figure] = []
        let probe = try rawProbe(server)
        let latencyDaemon = try startDaemon(server, "pg-latency", base: base, context: context)
        var result = try CommandBench.latency(
            daemon: latencyDaemon, context: context, pairs: options.latencyPairs,
            echoEndpoint: "tcp://127.0.0.1:\(try DaemonProcess.freePort())", storage: probe)
        latencyDaemon.stop()
        var rtt = result.rtt
        var insert = result.fsync
        let detail = String(
            format: "raw rtt p50 %.0f µs, INSERT;COMMIT p50 %.0f µs p99 %.0f µs (interleaved); pop p50 %.0f µs; "
                + "%d errors%@; daemon reports durability %@",
            rtt.percentile(50), insert.percentile(50), insert.percentile(99), result.pop.percentile(50), result.errors,
            result.firstError.map { " (first: \($0.prefix(120)))" } ?? "", result.durability)
        for (p, target) in [(50.0, Figure.Comparison.atMost(1.3)), (99, nil)] {
            figures.append(
                Figure(
                    section: "postgres", name: "push full tcp on PostgreSQL p\(Int(p))",
                    value: result.push.percentile(p), unit: "µs", limit: rtt.percentile(p) + insert.percentile(p),
                    limitName: "raw rtt + INSERT;COMMIT, same percentile", target: target, detail: detail))
        }
        figures.append(CommandBench.engineFigure(section: "postgres", label: "full tcp on PostgreSQL", result))
        let throughputDaemon = try startDaemon(server, "pg-throughput", base: base, context: context)
        let loop = try CommandBench.throughput(
            daemon: throughputDaemon, context: context, clients: 16, seconds: options.throughputSeconds)
        let stats = try BenchClient(context: context, endpoint: throughputDaemon.commandEndpoint).stats()
        throughputDaemon.stop()
        figures.append(
            Figure(
                section: "postgres", name: "durable push/pop/update on PostgreSQL, 16 clients",
                value: loop.okPerSecond, unit: "cmd/s", limit: echoThroughput > 0 ? echoThroughput : nil,
                limitName: "raw ROUTER echo, 16 clients",
                detail: String(
                    format: "%d replies, %d ok in %.1f s%@; %.1f units per group commit", loop.replies, loop.ok,
                    loop.seconds, loop.firstError.map { "; first error \($0.prefix(120))" } ?? "",
                    stats.number("store", "units") / max(1, stats.number("store", "commits")))))
        return figures
    }

    private static func startDaemon(_ server: Server, _ name: String, base: String, context: ZMQContext) throws
        -> DaemonProcess
    {
        let daemon = try DaemonProcess(dataDirectory: base + "/" + name, arguments: try server.newLog(name))
        do { try daemon.waitReady(context: context) } catch {
            daemon.stop()
            throw error
        }
        return daemon
    }
}
