// segue-store-crasher DB PRODUCERS [full|relaxed]
//
// Appends to the event store at DB (a SQLite file, or a PostgreSQL conninfo: anything with `=` or
// a postgresql:// URL) from PRODUCERS threads through the group committer (durability
// full unless `relaxed` is given: a SIGKILL must lose nothing acknowledged in either), forever, and
// prints `ack FIRST LAST` on stdout the moment each unit's completion reports it stored. The crash
// test (and scripts/crash-store.sh) SIGKILLs it at random moments and checks that the reopened log
// holds every acknowledged event, no half unit, and gapless seq and revisions.
//
// Every unit's events carry the command id `u<FIRST>x<COUNT>` so a checker can tell whole units
// from halves without any other record.
import Foundation
import SegueCore
import SeguePostgres
import SegueStore

let arguments = CommandLine.arguments
guard (3...4).contains(arguments.count), let producers = Int(arguments[2]), producers > 0,
    let durability = arguments.count == 4 ? Durability(rawValue: arguments[3]) : .full
else {
    FileHandle.standardError.write(Data("usage: segue-store-crasher DB PRODUCERS [full|relaxed]\n".utf8))
    exit(64)
}

enum Output {
    /// Writes a whole line with one write(2): lines from different threads never interleave on a pipe.
    @Sendable static func emit(_ line: String) {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
    }
}

let store: any EventStoring
do {
    let location = arguments[1]
    if location.contains("=") || location.hasPrefix("postgres") {
        store = try PostgresEventStore(conninfo: location, durability: durability)
    } else {
        store = try EventStore(path: location, durability: durability)
    }
} catch {
    Output.emit("error \(error)")
    exit(1)
}

/// Numbering and submission under one lock, so the committer sees units in seq order.
final class Numbering: @unchecked Sendable {
    let lock = NSLock()
    var seq: Int64
    var revisions: [String: Int64] = [:]
    init(seq: Int64) { self.seq = seq }
}
let numbering = Numbering(seq: store.lastSeq)
for producer in 0..<producers {
    let navigator = "nav-\(producer)"
    numbering.revisions[navigator] = (try? store.lastRevision(of: navigator)) ?? 0
}

for producer in 0..<producers {
    let thread = Thread {
        let navigator = "nav-\(producer)"
        let window = DispatchSemaphore(value: 4)
        while true {
            window.wait()
            numbering.lock.lock()
            let count = Int.random(in: 1...4)
            let first = numbering.seq + 1
            let command = "u\(first)x\(count)"
            var events: [EventRecord] = []
            for offset in 0..<count {
                numbering.seq += 1
                numbering.revisions[navigator, default: 0] += 1
                events.append(
                    EventRecord(
                        seq: first + Int64(offset), navigator: navigator, revision: numbering.revisions[navigator]!,
                        type: "transition.started", frame: numbering.seq, time: numbering.seq, command: command,
                        data: ["transition": .int(numbering.seq)]))
            }
            let last = numbering.seq
            store.submit(AppendUnit(events: events, commandID: command, navigator: navigator, reply: ["ok": true])) {
                result in
                switch result {
                case .success:
                    Output.emit("ack \(first) \(last)")
                    window.signal()
                case .failure(let error):
                    Output.emit("fail \(first) \(error)")
                    exit(2)
                }
            }
            numbering.lock.unlock()
        }
    }
    thread.start()
}

while true { sleep(60) }
