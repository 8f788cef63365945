import Foundation
import PostgresTestSupport
import Testing

/// The README's five-minute tour, pasted line by line: every line of its `sh` blocks runs against a
/// real segued (on free ports, through SEGUE_ENDPOINT; `make run` is that daemon), `segue watch`
/// lines in a tmux terminal, and each line's `# prints:` comment is checked.
@Suite(.ownThreads, .serialized) struct ReadmeTourTests {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md")

    /// The tour's shell lines, in order, with the prose marker "Stop the daemon" as `nil`.
    static func lines() throws -> [String?] {
        let text = try String(contentsOf: readme, encoding: .utf8)
        let tour =
            text.components(separatedBy: "## Five-minute tour").dropFirst().first?
            .components(separatedBy: "\n## ").first ?? ""
        var out: [String?] = []
        var inBlock = false
        for line in tour.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inBlock.toggle()
                continue
            }
            if inBlock, !line.isEmpty { out.append(String(line)) }
            if !inBlock, line.contains("Stop the daemon") { out.append(nil) }
        }
        return out
    }

    /// Runs `line` with /bin/sh in `directory` (posix_spawn and waitpid, output through files: a
    /// line may leave a process running in the background, which must not hold a pipe of ours).
    static func sh(_ line: String, in directory: String, environment: [String: String]) throws -> CliResult {
        let base = NSTemporaryDirectory() + "segue-tour-\(getpid())-\(UUID().uuidString.prefix(6))"
        defer { for suffix in [".out", ".err"] { unlink(base + suffix) } }
        let exports = environment.map { "export \($0.key)='\($0.value)'; " }.joined()
        let script = "\(exports)cd '\(directory)' && { \(line)\n} > '\(base).out' 2> '\(base).err' < /dev/null"
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup(script), nil]
        defer { for p in argv { free(p) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        SpawnActions.closeInherited(&actions)
        guard posix_spawn(&pid, "/bin/sh", &actions, nil, argv, environ) == 0 else {
            return CliResult(status: -1, stdout: "", stderr: "posix_spawn failed")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        let read = { (path: String) in (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        return CliResult(status: (status >> 8) & 0xff, stdout: read(base + ".out"), stderr: read(base + ".err"))
    }

    /// The tour is the README's, on the embedded default (SQLite in ./.segue).
    @Test(.sqliteOnly) func theTourRunsLineByLine() throws {
        let lines = try Self.lines()
        #expect(lines.count > 10, "\(lines)")
        let directory = DaemonProcess.temporaryDirectory()
        var daemon: DaemonProcess? = try DaemonProcess(
            dataDir: directory + "/.segue", logPath: directory + "/segued.log")
        defer { daemon?.stop() }
        let products = DaemonProcess.productsDirectory.path
        var env = [
            "PATH": products + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
            "SEGUE_ENDPOINT": daemon!.commandEndpoint, "SEGUE_PUBLISH_ENDPOINT": daemon!.publishEndpoint,
        ]
        // The tour's replay port, moved to a free one.
        let replayPort = "tcp://127.0.0.1:\(DaemonProcess.freePort())"
        var sessions: [String] = []
        var backgrounded = false
        defer { for s in sessions { _ = try? CliWatchTests.tmux(["kill-session", "-t", s]) } }
        for line in lines {
            guard var line else {
                daemon?.stop()
                daemon = nil
                // No daemon from here on: nothing listens at the command endpoint.
                env["SEGUE_ENDPOINT"] = "tcp://127.0.0.1:\(DaemonProcess.freePort())"
                continue
            }
            line = line.replacingOccurrences(of: "tcp://127.0.0.1:7501", with: replayPort)
            let command = line.components(separatedBy: "#").first!.trimmingCharacters(in: .whitespaces)
            if command == "make run" { continue }
            if command.hasPrefix("segue watch") {
                let session = "segue-tour-\(getpid())-\(sessions.count)"
                sessions.append(session)
                let exports = env.map { "\($0.key)='\($0.value)'" }.joined(separator: " ")
                _ = try CliWatchTests.tmux([
                    "new-session", "-d", "-s", session, "-x", "100", "-y", "30", "-c", directory,
                    "env \(exports) \(command)",
                ])
                // At once, the header (the first watch starts before anything is created).
                let first = sessions.count == 1
                let pane = try CliWatchTests.capture(session, tries: 300) {
                    first ? $0.hasPrefix("segue watch") : $0.contains("main  rev")
                }
                #expect(pane.hasPrefix("segue watch") || pane.contains("replay "), "\(line):\n\(pane)")
                continue
            }
            if command.hasSuffix("&") {
                // In the background, as a shell would; it ends once its subscriber has had the replay.
                _ = try Self.sh("(\(command.dropLast())) > /dev/null 2>&1 &", in: directory, environment: env)
                backgrounded = true
                usleep(200_000)
                continue
            }
            let result = try Self.sh(command, in: directory, environment: env)
            #expect(result.status == 0, "\(line)\n\(result.stderr)")
            if let printed = line.components(separatedBy: "# prints: ").dropFirst().first {
                let expected = printed.components(separatedBy: ";").first!.trimmingCharacters(in: .whitespaces)
                #expect(result.stdout.hasPrefix(expected + "\n"), "\(line)\n\(result.stdout)")
            }
        }
        #expect(sessions.count == 3, "the tour's three watch lines ran")
        // The first view, started before anything existed, has followed the whole tour.
        if let first = sessions.first {
            let pane = try CliWatchTests.tmux(["capture-pane", "-p", "-t", first])
            #expect(pane.contains("main  rev"), "\(pane)")
        }
        // The viewer of the re-published replay shows the session's navigator.
        if sessions.count > 1 {
            let pane = try CliWatchTests.capture(sessions[1], tries: 300) { $0.contains("main  rev") }
            #expect(pane.contains("main  rev") && pane.contains("no command socket"), "\(pane)")
        }
        #expect(backgrounded, "the replay for a viewer ran")
    }
}
