import Foundation
import SegueCore
import Testing

@testable import SegueStore

/// Really crashes: `segue-store-crasher` appends under load from several threads and reports each
/// acknowledged unit on stdout; we SIGKILL it at a random moment and reopen the log.
///
/// After every kill the log must hold every acknowledged event, whole units only, and gapless seq
/// and revisions. The rounds share one file, so recovery after recovery is exercised too.
@Suite struct CrashTests {
    /// `segue-store-crasher` is built next to the test bundle (`.build/<config>/`).
    static var crasherPath: String {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        for _ in 0..<4 {
            let path = directory.appendingPathComponent("segue-store-crasher").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
            directory.deleteLastPathComponent()
        }
        return "segue-store-crasher not found above \(executable)"
    }

    /// Both durabilities: `relaxed` acknowledges once the events are in the WAL, without fsync, which
    /// must still survive a crash of the process (only a power loss may take the last moments).
    /// 24 rounds on SQLite; 12 on PostgreSQL, whose rounds each start a server session.
    @Test(arguments: Backend.allCases, Durability.allCases)
    func everyAcknowledgedEventSurvivesSIGKILL(backend: Backend, durability: Durability) throws {
        let place = try LogPlace(backend)
        let database = place.conninfo ?? place.directory.file("events.db")
        let crasher = Self.crasherPath
        try #require(FileManager.default.isExecutableFile(atPath: crasher), "missing \(crasher)")
        var acknowledgedTotal = 0
        var checked = GaplessChecker()
        for round in 0..<(backend == .sqlite ? 24 : 12) {
            let acks = try Self.runAndKill(
                crasher, database: database, durability: durability, loadMilliseconds: Int.random(in: 50...200))
            #expect(!acks.isEmpty, "round \(round): the crasher acknowledged nothing")
            acknowledgedTotal += acks.count
            // Only this round's events are new; the checker carries seq and revisions over.
            let store = try place.open()
            defer { store.close() }
            let events = try store.events(after: checked.seq, navigator: nil, limit: .max)
            let gap = checked.check(events)
            #expect(gap == nil, "round \(round): \(gap ?? "")")
            #expect(Self.halfUnits(events).isEmpty, "round \(round): half units \(Self.halfUnits(events))")
            for ack in acks {
                #expect(
                    ack.last <= checked.seq,
                    "round \(round): acknowledged seq \(ack.last) lost (log ends at \(checked.seq))")
            }
            #expect(try store.reply(forCommand: events.last?.command ?? "") == ["ok": true])
        }
        #expect(acknowledgedTotal > 0)
    }

    /// Starts the crasher, waits for its first acknowledgement, lets it run `loadMilliseconds`
    /// more, SIGKILLs it and returns every `ack` it printed.
    static func runAndKill(_ crasher: String, database: String, durability: Durability, loadMilliseconds: Int) throws
        -> [(first: Int64, last: Int64)]
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: crasher)
        process.arguments = [database, "6", durability.rawValue]
        let pipe = Pipe()
        process.standardOutput = pipe
        let output = Output()
        pipe.fileHandleForReading.readabilityHandler = { handle in output.append(handle.availableData) }
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while !output.text.contains("ack ") && process.isRunning && Date() < deadline { usleep(2_000) }
        usleep(useconds_t(loadMilliseconds * 1000))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        pipe.fileHandleForReading.readabilityHandler = nil
        output.append(pipe.fileHandleForReading.readDataToEndOfFile())
        let text = output.text
        #expect(!text.contains("fail") && !text.contains("error"), "crasher reported: \(text.prefix(300))")
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 3, fields[0] == "ack", let first = Int64(fields[1]), let last = Int64(fields[2])
            else { return nil }
            return (first, last)
        }
    }

    /// Commands `u<FIRST>x<COUNT>` whose events are not exactly seqs FIRST ..< FIRST + COUNT.
    static func halfUnits(_ events: [EventRecord]) -> [String] {
        var seqs: [String: [Int64]] = [:]
        for event in events { seqs[event.command ?? "none", default: []].append(event.seq) }
        return seqs.compactMap { command, seqs in
            let parts = command.dropFirst().split(separator: "x")
            guard parts.count == 2, let first = Int64(parts[0]), let count = Int64(parts[1]) else { return command }
            return seqs == Array(first..<first + count) ? nil : command
        }
    }
}

/// Bytes read from the child's stdout on FileHandle's reader thread.
final class Output: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    func append(_ chunk: Data) { lock.withLock { data.append(chunk) } }
    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
}
