import Foundation
import SegueClient
import SegueCore
import Synchronization
import Testing

/// docs/operations.md, "Backup", followed as an operator reads it: the online copy it gives, run
/// while segued takes commands without a pause, finishes, and the copy verifies and holds every
/// command acknowledged before the copy began, at the seq its reply gave.
@Suite(.ownThreads, .serialized, .sqliteOnly) struct BackupDocTests {
    static let operations = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/operations.md")

    /// The shell command of the "Online copy" item, with the doc's paths.
    static func onlineCopyCommand() throws -> String {
        let text = try String(contentsOf: operations, encoding: .utf8)
        let item = try #require(text.components(separatedBy: "- **Online copy**:").dropFirst().first)
        let spans = item.components(separatedBy: "`")
        return try #require(spans.count > 1 ? spans[1] : nil, "no command in: \(item.prefix(200))")
    }

    /// Commands acknowledged so far: id and the seq of the reply.
    final class Writers: @unchecked Sendable {
        let acknowledged = Mutex<[(id: String, seq: Int64)]>([])
        let stop = Atomic<Bool>(false)
        private let done = DispatchGroup()

        /// One thread a navigator, each pushing and popping to the root, unanimated, with ids; each
        /// screen carries 8 KB of params, so that the log soon spans thousands of pages.
        init(daemon: DaemonProcess, count: Int) throws {
            for index in 0..<count {
                let endpoint = daemon.commandEndpoint
                try SegueClient(endpoint: endpoint).create("w\(index)", root: ScreenSpec(name: "Home"))
                done.enter()
                Thread { [self] in
                    defer { done.leave() }
                    guard let client = try? SegueClient(endpoint: endpoint) else { return }
                    let pad = String(repeating: "p", count: 8_000)
                    var n = 0
                    while !stop.load(ordering: .relaxed) {
                        let id = "w\(index)-\(n)"
                        let envelope = CommandEnvelope(requestID: id)
                        let options = TransitionOptions(animated: false)
                        guard
                            let reply = try? n % 4 == 3
                                ? client.popToRoot("w\(index)", options: options, envelope: envelope)
                                : client.push(
                                    "w\(index)", ScreenSpec(name: "S\(n)", params: ["pad": .string(pad)]),
                                    options: options,
                                    envelope: envelope)
                        else { continue }
                        acknowledged.withLock { $0.append((id, reply.seq)) }
                        n += 1
                    }
                }.start()
            }
        }

        var count: Int { acknowledged.withLock { $0.count } }

        func finish() {
            stop.store(true, ordering: .relaxed)
            done.wait()
        }
    }

    /// SQLite's shell copies with the backup API 100 pages a step, and starts over whenever another
    /// process commits between steps: under steady commands its `.backup` never ends. The doc's
    /// command must finish while the writers go on, and its copy hold what was acknowledged first.
    @Test func theOnlineCopyFinishesUnderSteadyCommands() throws {
        let command = try Self.onlineCopyCommand()
        let daemon = try DaemonProcess(arguments: ["--durability", "relaxed"])
        defer { daemon.stop() }
        let writers = try Writers(daemon: daemon, count: 4)
        defer { writers.finish() }
        // A log of some 10,000 pages (40 MB), so that a copy takes many of the shell's steps.
        let filled = ContinuousClock.now + .seconds(60)
        while writers.count < 2_000, ContinuousClock.now < filled { usleep(50_000) }
        let before = writers.acknowledged.withLock { $0 }
        let backup = DaemonProcess.temporaryDirectory()
        let line =
            command
            .replacingOccurrences(of: "/var/lib/segue/segue.db", with: daemon.dataDir + "/segue.db")
            .replacingOccurrences(of: "/backup/segue.db", with: backup + "/segue.db")
        // exec: the shell's place is the command's, so the kill at the time limit reaches it.
        let copy = try ChildProcess.run(["/bin/sh", "-c", "exec " + line], timeout: .seconds(30))
        let during = writers.count - before.count
        writers.finish()
        try #require(!copy.timedOut, "`\(line)` did not finish in 30 s while segued took commands")
        #expect(copy.status == 0, "\(copy.output)")
        #expect(during > 0, "no command was acknowledged during the copy")

        let verify = try Cli.run(["verify", "--data-dir", backup])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        let export = try Cli.run(["export", "--data-dir", backup])
        var held: [String: Int64] = [:]
        for line in export.stdout.split(separator: "\n") {
            let event = try JSON.parse(String(line))
            if let id = event["command"]?.stringValue, let seq = event["seq"]?.int64Value {
                held[id] = max(held[id] ?? 0, seq)
            }
        }
        let missing = before.filter { held[$0.id] != $0.seq }
        #expect(missing.isEmpty, "\(missing.count) of \(before.count) acknowledged commands not in the copy as replied")
    }
}
