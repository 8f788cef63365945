import Foundation
import SegueClient
import SegueCommandLine
import SegueCore
import SegueStore
import SegueWire

/// export, import, verify (on a data dir or file, no daemon involved) and keygen.
enum StoreCommands {
    static func export(_ inv: Invocation) throws {
        let log = try LogSource.openLog(inv.parsed.value(required: "data-dir"))
        let output = inv.parsed.value("output")
        let exported = ProgressingLog(log)
        let count: Int
        // Standard output is written as the log is read: a reader that goes away ends the export there
        // (SIGPIPE), leaving nothing behind.
        do throws(StoreError) {
            if let output {
                count = try exportReplacing(output, exported)
            } else {
                count = try exported.exportJSONLines { Output.write($0) }
            }
        } catch { throw IOFailure(error.message, store: error) }
        guard let output else { return }
        if inv.json {
            inv.print(["exported": .int(Int64(count)), "file": .string(output)], "")
        } else {
            Output.error("Exported \(count.counted("event")) to \(output).")
        }
    }

    /// Writes the export to `output` whole or not at all: a regular file (or none yet) is written as a
    /// new file beside it and renamed over it once synced, so an export cut short (Ctrl-C, a failed
    /// read) leaves what was there, never a short file that `verify` would pass as a whole log. A
    /// FIFO or a device (`/dev/stdout`) is written in place.
    static func exportReplacing(_ output: String, _ log: some EventSequence) throws(StoreError) -> Int {
        var status = stat()
        let exists = stat(output, &status) == 0
        guard !exists || status.st_mode & S_IFMT == S_IFREG else { return try log.exportJSONLines(to: output) }
        // Through a link, the file it names is replaced, as writing through it would have changed it.
        let target = exists ? URL(fileURLWithPath: output).resolvingSymlinksInPath().path : output
        let directory = (target as NSString).deletingLastPathComponent
        let temporary =
            (directory.isEmpty ? "" : directory + "/")
            + ".\((target as NSString).lastPathComponent).segue-export-\(getpid())"
        TemporaryFiles.removeOnSignal([temporary])
        do throws(StoreError) {
            let count = try log.exportJSONLines(to: temporary, exclusive: true)
            guard rename(temporary, target) == 0 else {
                let code = errno
                throw StoreError(
                    kind: .io,
                    message:
                        "Cannot rename the export into place as \(output): \(String(cString: strerror(code))) (errno \(code))."
                )
            }
            // The rename itself is durable once the directory is synced.
            let descriptor = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if descriptor >= 0 {
                fsync(descriptor)
                close(descriptor)
            }
            return count
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// Holding the log's writer lock, checks the existing log followed by the file as `verify`
    /// would, and appends only if that comes out clean: nothing is written for a file that does not
    /// continue the log or that a daemon could not rebuild. The file is read twice, once to check and
    /// once to append, an event at a time; standard input is first copied to a temporary file.
    static func importLog(_ inv: Invocation) throws {
        let place = inv.parsed.value(required: "data-dir")
        var file = inv.argument("file")
        if LogSource.isDataDir(file), !FileManager.default.fileExists(atPath: file + "/segue.db") {
            throw IOFailure(
                "\(file) is a directory, not a JSON Lines file: import appends an export (segue export -o FILE).")
        }
        if LogSource.isDataDir(file) || LogSource.isStoreURL(file) {
            throw IOFailure(
                "\(file) is a log, not a JSON Lines file: import appends an export. Export it first (segue export "
                    + "--data-dir \(file) -o FILE), or copy a whole log into an empty one with segue migrate.")
        }
        guard LogSource.isStandardInput(file) || FileManager.default.fileExists(atPath: file) else {
            throw IOFailure("\(file) does not exist; pass a JSON Lines export (segue export -o FILE).")
        }
        let named = LogSource.isStandardInput(file) ? "standard input" : file
        if LogSource.isStandardInput(file) { file = try LogSource.spoolStandardInput("import") }
        defer { if file != named { try? FileManager.default.removeItem(atPath: file) } }
        let target = try WritableLog(place)
        var imported = false
        defer { target.close(keep: imported) }
        guard let outcome = try append(from: file, named: named, to: target, inv) else { return }
        imported = outcome.count > 0 || !target.created
        // An empty file into a log that was not there makes no log: said, not "the log ends at seq 0".
        let text =
            imported
            ? "Imported \(outcome.count.counted("event")); the log ends at seq \(target.store.lastSeq)."
            : "Imported no events: \(named) holds none, so no log was made at \(place)."
        inv.print(
            ["imported": .int(outcome.count), "seq": .int(target.store.lastSeq), "before": .int(outcome.before)], text)
    }

    /// Checks the log followed by the file at `file` (`named` in messages) as `verify` would, then
    /// appends the file in one transaction. Reports the problems and returns nil when there are any.
    /// Both passes hold one event at a time.
    static func append(
        from file: String, named: String? = nil, to target: WritableLog,
        commands: any CommandSequence = [CommandRecord](),
        _ inv: Invocation
    ) throws -> (count: Int, before: Int64)? {
        let named = named ?? file
        let store = target.store
        var checker = LogChecker()
        var progress = Progress("import: checking the \(target.noun)'s event", total: Int(store.lastSeq))
        do {
            try store.forEachEvent(after: 0) {
                checker.add($0)
                progress.update(checker.count)
            }
        } catch {
            throw IOFailure("Reading \(target.place) failed: \(error.message)", store: error)
        }
        progress.finish()
        let existing = checker.count
        var incoming = 0
        // The same export again, or one that overlaps the log: said in those terms, not as the first
        // event that fails to follow (its frame going back). The rest of the file is only counted.
        var overlap: (first: Int64, last: Int64)?
        progress = Progress("import: checking \(named)'s event")
        do {
            try LogSource.forEachEvent(file) { line, event in
                incoming += 1
                progress.update(incoming)
                if let first = overlap?.first {
                    overlap = (first, event.seq)
                } else if incoming == 1, existing > 0, event.seq <= store.lastSeq {
                    overlap = (event.seq, event.seq)
                } else {
                    checker.add(event, line: line)
                }
            }
        } catch let failure as IOFailure where failure.isContent {
            progress.finish()
            let problem = file == named ? failure.description : failure.description.replacing(file, with: named)
            try report(named, problems: [problem], conclusion: Self.nothingImported, events: 0, navigators: 0, inv)
            return nil
        }
        progress.finish()
        if let (first, last) = overlap {
            try report(
                named,
                problems: [
                    "The \(target.noun) already holds seqs 1–\(store.lastSeq); \(named) holds seqs \(first)–\(last), so "
                        + "importing it would repeat them. Import only a file that continues the log (from seq "
                        + "\(store.lastSeq + 1))."
                ], conclusion: Self.nothingImported, events: incoming, navigators: checker.navigators, inv)
            return nil
        }
        checker.finish()
        guard checker.problems.isEmpty else {
            let problems = file == named ? checker.problems : checker.problems.map { $0.replacing(file, with: named) }
            try report(
                named, problems: problems, conclusion: Self.nothingImported, events: incoming,
                navigators: checker.navigators, inv)
            return nil
        }
        progress = Progress("import: appending event", total: incoming)
        defer { progress.finish() }
        do {
            let count = try store.importJSONLines(from: file, commands: commands) { progress.update($0) }
            return (count, Int64(existing))
        } catch {
            if error.kind == .io { throw IOFailure(error.message) }
            throw Refusal(error.code, error.message)
        }
    }

    /// SQLite's integrity check (for a data dir), then every event folded through the navigation core
    /// (`LogChecker`), one at a time. A file that is not JSON Lines of events is a problem found
    /// (status 1), like any other; a file or data dir that cannot be read at all is status 74.
    static func verify(_ inv: Invocation) throws {
        let target: String
        var problems: [String] = []
        if let dir = inv.parsed.value("data-dir") {
            if let file = inv.parsed.argument("file") {
                throw UsageError("Give either a file (\(file)) or --data-dir <dir> to verify, not both.")
            }
            target = dir
        } else if let file = inv.parsed.argument("file") {
            target = file
        } else {
            throw UsageError("Give a JSON Lines file or --data-dir <dir> to verify.")
        }
        // A data dir or database given either way gets the store's own check too: a restored file
        // beside a stale -wal folds cleanly and is still damaged.
        // Damage the store's check stumbled on, said once: the fold stumbles on the same pages.
        var damaged = false
        // A log says how many events it holds, for the progress line; a file is read through blind.
        var total: Int?
        if inv.parsed.value("data-dir") != nil || LogSource.isDataDir(target) || LogSource.isStoreURL(target) {
            do {
                let log = try LogSource.openLog(target)
                total = (try? log.lastEvent()).flatMap { $0.map { Int($0.seq) } }
                do { problems += try log.integrityCheck() } catch  where error.isDamage {
                    let checking = "Checking \(LogSource.named(target)) failed: \(error.message)"
                    problems.append(IOFailure(checking, store: error).description)
                    damaged = true
                } catch {
                    problems.append(error.message)
                }
            } catch let failure as IOFailure where failure.isContent {
                // A damaged header: nothing of the log can be read, so nothing more to check.
                return try report(target, problems: [failure.description], events: 0, navigators: 0, inv)
            }
        }
        var checker = LogChecker()
        var progress = Progress("verifying: event", total: total)
        do {
            try LogSource.forEachEvent(target) { line, event in
                checker.add(event, line: line)
                progress.update(checker.count)
            }
        } catch let failure as IOFailure where failure.isContent {
            if !damaged { problems.append(failure.description) }
        }
        progress.finish()
        checker.finish()
        try report(
            target, problems: problems + checker.problems, events: checker.count, navigators: checker.navigators, inv)
    }

    static let nothingImported = "Nothing was imported."

    /// Prints a check's outcome and exits 1 when there are problems: each problem on stderr, named
    /// by its target, `conclusion` once after the last; with `--json` also one object on stdout, whose
    /// `error` is every failure's (code `invalid_log`, the first line on stderr as the message).
    static func report(
        _ target: String, problems: [String], conclusion: String? = nil, events: Int, navigators: Int,
        _ inv: Invocation
    ) throws {
        let placed = problems.map { LogSource.placed($0, in: target) }
        var lines = placed
        if let conclusion, let last = lines.indices.last { lines[last] += " " + conclusion }
        for line in lines { Output.error(line) }
        if inv.json {
            var object: JSONObject = [
                "ok": .bool(problems.isEmpty), "events": .int(Int64(events)), "navigators": .int(Int64(navigators)),
                "problems": .array(placed.map(JSON.string)),
            ]
            if var message = lines.first {
                if lines.count > 1 {
                    message += " (and \((lines.count - 1).counted("more problem")))"
                    if let conclusion { message += " " + conclusion }
                }
                object["error"] = ["code": "invalid_log", "message": .string(message)]
            }
            Output.line(JSON.object(object).serialized())
        } else if problems.isEmpty {
            Output.line(
                "\(LogSource.named(target)): ok, \(events.counted("event")), \(navigators.counted("navigator")).")
        }
        if !problems.isEmpty { throw Exit(.rejected) }
    }

    static func keygen(_ inv: Invocation) throws {
        let out = inv.parsed.value(required: "out")
        // `keys/` would write the hidden files keys/.key and keys/.pub.
        guard !out.isEmpty, !out.hasSuffix("/") else {
            throw UsageError.invalidValue(out, for: "--out", "expected a path and base name, e.g. ./keys/ops")
        }
        let pair = try ZMQCurve.keyPair()
        let secretPath = out + ".key"
        let publicPath = out + ".pub"
        // A new key directory is the owner's alone (0700); an existing one is left as it is.
        let dir = (out as NSString).deletingLastPathComponent
        if !dir.isEmpty, !FileManager.default.fileExists(atPath: dir) {
            do {
                try FileManager.default.createDirectory(
                    atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw IOFailure("Cannot create the directory \(dir): \(IOFailure.reason(error)).")
            }
        }
        func exists(_ path: String) -> IOFailure {
            IOFailure("\(path) exists; keygen never overwrites a key. Remove it or choose another --out.")
        }
        // open(2) with O_EXCL: never overwrites a key (not even one that appears meanwhile), creates the
        // secret file 0600 before anything is in it, and takes the path as given (Foundation expands a
        // leading ~ in some calls and not others).
        func write(_ text: String, to path: String, mode: mode_t) throws {
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
            guard fd >= 0 else {
                let error = errno
                if error == EEXIST { throw exists(path) }
                throw IOFailure("Cannot create \(path): \(IOFailure.reason(errno: error)).")
            }
            defer { close(fd) }
            let bytes = Array((text + "\n").utf8)
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            guard written == bytes.count, fsync(fd) == 0 else {
                throw IOFailure("Cannot write \(path): \(IOFailure.reason(errno: errno)).")
            }
        }
        // Both checked first, so that an existing .pub does not leave a new .key behind.
        for path in [secretPath, publicPath] where access(path, F_OK) == 0 { throw exists(path) }
        try write(pair.secret, to: secretPath, mode: 0o600)
        try write(pair.public, to: publicPath, mode: 0o644)
        inv.print(
            ["public": .string(pair.public), "secretFile": .string(secretPath), "publicFile": .string(publicPath)],
            "Wrote \(secretPath) (secret, mode 0600) and \(publicPath); public key \(pair.public)")
    }
}
