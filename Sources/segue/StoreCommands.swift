import Foundation
import SegueClient
import SegueCore
import SegueStore
import SegueWire

/// export, import, verify (on a data dir or file, no daemon involved) and keygen.
enum StoreCommands {
    static func dataDir(_ inv: Invocation) throws(UsageError) -> String {
        guard let dir = inv.parsed.value("data-dir") else { throw UsageError("Missing value for '--data-dir <dir>'.") }
        return dir
    }

    static func export(_ inv: Invocation) throws {
        let log = try LogSource.openLog(try dataDir(inv))
        let output = inv.parsed.value("output")
        let path = output ?? NSTemporaryDirectory() + "segue-export-\(getpid()).jsonl"
        let count: Int
        do { count = try log.exportJSONLines(to: path) } catch { throw IOFailure(error.message) }
        if let output {
            Output.error("Exported \(count) events to \(output).")
        } else {
            defer { try? FileManager.default.removeItem(atPath: path) }
            if let data = FileManager.default.contents(atPath: path) { FileHandle.standardOutput.write(data) }
        }
    }

    static func importLog(_ inv: Invocation) throws {
        let dir = try dataDir(inv)
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = (dir as NSString).appendingPathComponent("segue.db")
        let store: EventStore
        do { store = try EventStore(path: path) } catch { throw IOFailure("Cannot open \(path): \(error.message)") }
        let count: Int
        do { count = try store.importJSONLines(from: inv.argument("file")) } catch {
            Output.error("error: \(error.message)")
            throw Exit(.rejected)
        }
        inv.print(
            ["imported": .int(count), "seq": .int(store.lastSeq)],
            "Imported \(count) events; the log ends at seq \(store.lastSeq).")
    }

    /// SQLite's integrity check (for a data dir), then a fold of every event through `Fleet.apply`,
    /// which rejects any seq or revision gap and any event the navigation core cannot read.
    static func verify(_ inv: Invocation) throws {
        let target: String
        var problems: [String] = []
        if let dir = inv.parsed.value("data-dir") {
            target = dir
            let log = try LogSource.openLog(dir)
            do { problems += try log.integrityCheck() } catch { problems.append(error.message) }
        } else if let file = inv.parsed.argument("file") {
            target = file
        } else {
            throw UsageError("Give a JSON Lines file or --data-dir <dir> to verify.")
        }
        let events = try LogSource.events(target)
        var fleet: Fleet?
        if let rate = LogSource.inferFrameRate(events) ?? (events.isEmpty ? 60 : nil) {
            fleet = Fleet(clock: try FrameClock(rate: rate))
        } else {
            problems.append("The events' frames and times fit no frame rate from 1 to 1000 Hz.")
        }
        var lastFrame = Int64.min
        if var f = fleet {
            for e in events {
                if e.frame < lastFrame {
                    problems.append("Event \(e.seq) goes back to frame \(e.frame) from \(lastFrame).")
                }
                lastFrame = max(lastFrame, e.frame)
                do { try f.apply(e) } catch {
                    problems.append(error.message)
                    break
                }
            }
            fleet = f
        }
        let navigators = fleet?.navigators.count ?? 0
        if inv.json {
            Output.line(
                JSON.object([
                    "ok": .bool(problems.isEmpty), "events": .int(events.count), "navigators": .int(navigators),
                    "problems": .array(problems.map(JSON.string)),
                ]).serialized())
        } else if problems.isEmpty {
            Output.line("\(target): ok, \(events.count) events, \(navigators) navigators.")
        } else {
            for p in problems { Output.error("\(target): \(p)") }
        }
        if !problems.isEmpty { throw Exit(.rejected) }
    }

    static func keygen(_ inv: Invocation) throws {
        guard let out = inv.parsed.value("out") else { throw UsageError("Missing value for '--out <path>'.") }
        let pair = try ZMQCurve.keyPair()
        let secretPath = out + ".key"
        let publicPath = out + ".pub"
        let dir = (out as NSString).deletingLastPathComponent
        if !dir.isEmpty { try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
        for path in [secretPath, publicPath] where FileManager.default.fileExists(atPath: path) {
            throw IOFailure("\(path) exists; keygen never overwrites a key. Remove it or choose another --out.")
        }
        // The secret file is created 0600 before anything is written to it.
        guard FileManager.default.createFile(atPath: secretPath, contents: nil, attributes: [.posixPermissions: 0o600]),
            let handle = FileHandle(forWritingAtPath: secretPath)
        else { throw IOFailure("Cannot create \(secretPath).") }
        handle.write(Data((pair.secret + "\n").utf8))
        try handle.close()
        guard
            FileManager.default.createFile(
                atPath: publicPath, contents: Data((pair.public + "\n").utf8), attributes: [.posixPermissions: 0o644])
        else { throw IOFailure("Cannot create \(publicPath).") }
        inv.print(
            ["public": .string(pair.public), "secretFile": .string(secretPath), "publicFile": .string(publicPath)],
            "Wrote \(secretPath) (secret, mode 0600) and \(publicPath); public key \(pair.public)")
    }
}
