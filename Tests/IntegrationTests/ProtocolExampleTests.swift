import Foundation
import SegueCore
import SegueProtocol
import SegueWire
import Testing

/// docs/protocol.md's Python example runs against a real daemon and passes its own checks, and the
/// copy embedded in the document is the file, byte for byte. pyzmq is required: CI installs it, so a
/// missing module is a failure, never a skip.
@Suite(.ownThreads) struct ProtocolExampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let example = root.appendingPathComponent("docs/examples/protocol_example.py")
    static let document = root.appendingPathComponent("docs/protocol.md")

    @Test(.alone, .frameTiming) func thePythonExampleRunsCleanAgainstTheDaemon() throws {
        let probe = try Self.python(["-c", "import zmq"])
        let hint = "python3 cannot import zmq (pyzmq), which this test needs; install it with `pip install pyzmq`."
        try #require(probe.status == 0, "\(hint)\n\(probe.output)")
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let run = try Self.python([
            Self.example.path, "--command", daemon.commandEndpoint, "--publish", daemon.publishEndpoint,
        ])
        #expect(run.status == 0, "the example failed:\n\(run.output)\nsegued log:\n\(daemon.log.suffix(3000))")
        #expect(run.output.contains("OK"))
        #expect(daemon.process.isRunning)
    }

    @Test func theDocumentEmbedsTheExampleVerbatim() throws {
        let document = try String(contentsOf: Self.document, encoding: .utf8)
        let file = try String(contentsOf: Self.example, encoding: .utf8)
        let marker = "<!-- example: docs/examples/protocol_example.py -->\n```python\n"
        let start = try #require(document.range(of: marker), "protocol.md must embed the example after \(marker)")
        let end = try #require(document.range(of: "\n```\n", range: start.upperBound..<document.endIndex))
        let embedded = String(document[start.upperBound..<end.lowerBound]) + "\n"
        #expect(
            embedded == file,
            "docs/protocol.md and docs/examples/protocol_example.py differ; copy the file into the doc")
    }

    @Test func theDocumentNamesEveryCommandErrorCodeAndEventType() throws {
        let document = try String(contentsOf: Self.document, encoding: .utf8)
        let names = Request.allCommands + ErrorCode.allCases.map(\.rawValue) + NavigationEvent.types
        for name in names {
            #expect(document.contains("`\(name)`"), "docs/protocol.md does not mention `\(name)`")
        }
    }

    /// Runs python3 with `arguments`, returning its exit status and merged output (killed after 30 s).
    static func python(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let watchdog = ProcessBox(process)
        DispatchQueue.global().asyncAfter(deadline: .now() + 30) { watchdog.terminateIfRunning() }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

/// Lets the watchdog reach the child process from another thread; `Process` is thread-safe for this.
private final class ProcessBox: @unchecked Sendable {
    let process: Process
    init(_ process: Process) { self.process = process }
    func terminateIfRunning() { if process.isRunning { process.terminate() } }
}
