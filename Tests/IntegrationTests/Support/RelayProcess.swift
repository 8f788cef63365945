import Foundation

/// A real `segue relay` started for a test on a free loopback port (or the endpoint given), with its
/// stderr (its log) collected; `stop` sends SIGTERM and waits for the exit.
final class RelayProcess: @unchecked Sendable {
    let publishEndpoint: String
    let controlEndpoint: String
    let process: CliBackground

    /// Starts a relay of `upstream` and waits for its `Forwarding …` line (it binds before logging it).
    /// `oneFrom`: every endpoint after one `--from` (`--from A B`), else `--from` before each.
    init(
        from upstream: [String], publish: String? = nil, arguments: [String] = [],
        environment: [String: String] = [:], oneFrom: Bool = false
    ) throws {
        publishEndpoint = publish ?? "tcp://127.0.0.1:\(DaemonProcess.freePort())"
        controlEndpoint = "ipc://" + DaemonProcess.temporaryDirectory() + "/relay.ctl"
        let words =
            ["relay", "--publish", publishEndpoint, "--control", controlEndpoint]
            + (oneFrom ? ["--from"] + upstream : upstream.flatMap { ["--from", $0] }) + arguments
        process = try CliBackground(words, environment: environment)
        guard process.wait(for: "segue relay: Forwarding", onStderr: true) else {
            process.finish(timeout: .seconds(1))
            throw WaitTimeout(what: "segue relay to start: \(process.stderr)")
        }
    }

    var log: String { process.stderr }

    /// SIGTERM, then the exit status (128 + signal if it did not stop by itself within `timeout`).
    @discardableResult
    func stop(timeout: Duration = .seconds(10)) -> Int32 {
        if process.process.isRunning { process.process.terminate() }
        process.finish(timeout: timeout)
        return process.process.terminationReason == .uncaughtSignal
            ? 128 + process.process.terminationStatus : process.process.terminationStatus
    }

    /// SIGKILL: a relay that vanishes without a word.
    func kill() {
        if process.process.isRunning { Foundation.kill(process.process.processIdentifier, SIGKILL) }
        process.finish(timeout: .seconds(5))
    }

    deinit { if process.process.isRunning { Foundation.kill(process.process.processIdentifier, SIGKILL) } }
}
