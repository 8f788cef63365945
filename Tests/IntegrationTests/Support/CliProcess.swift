import Foundation

/// Runs the built `segue` binary against a test daemon and collects what it printed.
struct CliResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

enum Cli {
    static var binary: String { DaemonProcess.binary("segue") }

    /// Runs `segue arguments` with the daemon's endpoints (and `environment`) in the environment; waits
    /// for the exit. `killedAfter`: a command that may wait forever when the test fails (`watch`) is
    /// killed then (status 137), through timeout(1).
    @discardableResult
    static func run(
        _ arguments: [String], daemon: DaemonProcess? = nil, environment: [String: String] = [:], stdin: String? = nil,
        killedAfter: Int? = nil
    ) throws -> CliResult {
        let process = Process()
        if let killedAfter {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
            process.arguments = ["-s", "KILL", "\(killedAfter)", binary] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = arguments
        }
        var env = ProcessInfo.processInfo.environment
        if let daemon {
            env["SEGUE_ENDPOINT"] = daemon.commandEndpoint
            env["SEGUE_PUBLISH_ENDPOINT"] = daemon.publishEndpoint
        }
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        // Read both pipes to the end before waiting, so a chatty child never blocks on a full pipe.
        nonisolated(unsafe) var errData = Data()
        let reader = Thread { errData = err.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !reader.isFinished { usleep(1000) }
        return CliResult(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }
}

/// A long-running `segue` (watch, log --follow) whose output a test waits on, instead of sleeping
/// for a guessed time: a thread per stream collects what the child writes.
final class CliBackground: @unchecked Sendable {
    let process = Process()
    private let lock = NSCondition()
    private var collected: [String] = ["", ""]
    private var open = 2

    init(_ arguments: [String], executable: String = Cli.binary, environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let pipes = [Pipe(), Pipe()]
        process.standardOutput = pipes[0]
        process.standardError = pipes[1]
        try process.run()
        for (index, pipe) in pipes.enumerated() {
            Thread { [self] in
                let handle = pipe.fileHandleForReading
                while true {
                    let data = handle.availableData
                    lock.lock()
                    if data.isEmpty { open -= 1 } else { collected[index] += String(decoding: data, as: UTF8.self) }
                    lock.broadcast()
                    lock.unlock()
                    if data.isEmpty { return }
                }
            }.start()
        }
    }

    var stdout: String { lock.withLock { collected[0] } }
    var stderr: String { lock.withLock { collected[1] } }

    /// Waits until stdout (or stderr) contains `text`; false after `timeout`.
    @discardableResult
    func wait(for text: String, onStderr: Bool = false, timeout: Duration = .seconds(10)) -> Bool {
        wait(onStderr: onStderr, timeout: timeout) { $0.contains(text) }
    }

    /// Waits until what stdout (or stderr) holds satisfies `predicate`; false after `timeout`.
    @discardableResult
    func wait(onStderr: Bool = false, timeout: Duration = .seconds(10), until predicate: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(Double(timeout.components.seconds))
        lock.lock()
        defer { lock.unlock() }
        while !predicate(collected[onStderr ? 1 : 0]) {
            guard open > 0, lock.wait(until: deadline) else { return predicate(collected[onStderr ? 1 : 0]) }
        }
        return true
    }

    /// Waits for the exit (SIGTERM after `timeout`) and for both streams to end.
    func finish(timeout: Duration = .seconds(10)) {
        let deadline = Date().addingTimeInterval(Double(timeout.components.seconds))
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        lock.lock()
        while open > 0, lock.wait(until: Date().addingTimeInterval(5)) {}
        lock.unlock()
    }

    deinit { if process.isRunning { process.terminate() } }
}
