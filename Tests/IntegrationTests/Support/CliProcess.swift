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
    /// for the exit.
    @discardableResult
    static func run(
        _ arguments: [String], daemon: DaemonProcess? = nil, environment: [String: String] = [:], stdin: String? = nil
    ) throws -> CliResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
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
