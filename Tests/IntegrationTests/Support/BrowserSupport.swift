import Foundation
import SegueCore
import Testing

/// Headless Chromium for the viewer tests, driven by scripts/viewer_probe.py (selenium and
/// chromedriver); `.ci/run` installs all three.
enum Browser {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let probeScript = root.appendingPathComponent("scripts/viewer_probe.py").path

    static let missing: String? = {
        for tool in ["/usr/bin/chromium", "/usr/bin/chromedriver"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is not installed (apt-get install chromium chromium-driver)"
        }
        guard let probe = try? CliBackground(["python3", "-c", "import selenium"], executable: "/usr/bin/env") else {
            return "python3 cannot be run"
        }
        probe.finish(timeout: .seconds(30))
        return probe.process.terminationStatus == 0 ? nil : "python3 cannot import selenium (pip install selenium)"
    }()

    static var available: Bool { missing == nil }
    static var skipReason: Comment {
        Comment(rawValue: "needs headless Chromium: \(missing ?? ""); .ci/run installs it")
    }

    /// A running probe: its stdout is JSON lines; the last one is its result.
    final class Probe {
        let child: CliBackground
        let timeout: Duration

        init(_ arguments: [String], timeout: Duration = .seconds(90)) throws {
            self.timeout = timeout
            let seconds = String(timeout.components.seconds)
            child = try CliBackground(
                ["python3", Browser.probeScript] + arguments + ["--timeout", seconds], executable: "/usr/bin/env")
        }

        /// Waits for the line `{"ready": true}` (the tabs command).
        func waitReady() -> Bool { child.wait(for: "{\"ready\": true}", timeout: timeout) }

        /// Waits for the exit, at most `timeout`: then the whole process group (python, chromedriver,
        /// Chromium) is killed. Returns the last line parsed, which carries `error` when it failed.
        func result() throws -> JSON {
            let finished = child.wait(timeout: timeout) { _ in !child.process.isRunning }
            let pid = child.process.processIdentifier
            // Foundation starts the child as the leader of its own process group.
            if !finished || child.process.isRunning { kill(-pid, SIGTERM) }
            child.finish(timeout: .seconds(10))
            kill(-pid, SIGKILL)
            let lines = child.stdout.split(separator: "\n")
            guard let last = lines.last else {
                throw ProbeError("viewer_probe printed nothing; stderr:\n\(child.stderr.suffix(3000))")
            }
            let json = try JSON.parse(String(last))
            if let error = json["error"]?.stringValue {
                throw ProbeError("viewer_probe: \(error)\nstderr:\n\(child.stderr.suffix(3000))")
            }
            return json
        }

        static func run(_ arguments: [String], timeout: Duration = .seconds(90)) throws -> JSON {
            try Probe(arguments, timeout: timeout).result()
        }
    }

    struct ProbeError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

/// `segue view` running for a test, on a free loopback port; its URL is read from what it prints.
final class ViewerProcess {
    let child: CliBackground
    let url: String

    init(_ arguments: [String], daemon: DaemonProcess? = nil) throws {
        var environment: [String] = []
        if let daemon {
            environment = [
                "SEGUE_ENDPOINT=\(daemon.commandEndpoint)", "SEGUE_PUBLISH_ENDPOINT=\(daemon.publishEndpoint)",
            ]
        }
        child = try CliBackground(
            environment + [Cli.binary, "view", "--listen", "127.0.0.1:0"] + arguments, executable: "/usr/bin/env")
        guard child.wait(for: "http://", timeout: .seconds(60)),
            let line = child.stdout.split(separator: "\n").first(where: { $0.contains("http://") }),
            let start = line.range(of: "http://"),
            let end = line[start.lowerBound...].firstIndex(of: " ")
        else {
            child.process.terminate()
            throw Browser.ProbeError("segue view did not say where it serves:\n\(child.stdout)\n\(child.stderr)")
        }
        url = String(line[start.lowerBound..<end])
    }

    /// Ctrl-C's signal; it must exit 0.
    func stop() -> Int32 {
        kill(child.process.processIdentifier, SIGINT)
        child.finish(timeout: .seconds(10))
        return child.process.terminationStatus
    }

    deinit { if child.process.isRunning { kill(child.process.processIdentifier, SIGKILL) } }
}
