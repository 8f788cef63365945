import Foundation
import SegueCommandLine
import SegueCore
import SegueStore

/// `segue migrate --from <data-dir|url> --to <url|data-dir>`: copies a log exactly into an empty one
/// on either backend (docs/operations.md, "Moving a log between backends").
///
/// Export, then import with the continuity checks `import` makes, then the target's export compared
/// with the source's byte for byte: a copy that differs in anything is reported, never kept silently.
/// The stored command ids and their replies go in the same transaction as the events, and are
/// compared too: a client retrying a command applied before the move gets its first reply, not a
/// second application. Snapshots are not copied: the daemon folds the log at its first start on the
/// target and writes its checkpoints from there.
enum MigrateCommand {
    static let configuration = CommandConfiguration(
        name: "migrate", abstract: "Copy a log exactly into an empty log, on either backend.",
        discussion:
            "FROM and TO are data dirs or postgresql:// URLs (no password in them: libpq reads it from "
            + "PGPASSFILE or ~/.pgpass). The source is only read, so a daemon may still run on it, but stop it "
            + "first to copy everything. The target must hold no events and no segued may run on it. Events "
            + "are exported, checked as import checks them, and appended in one transaction with the stored "
            + "command ids and replies (so retries of earlier commands are still answered, not applied again); "
            + "then the target's export is compared with the source's byte for byte, and its command ids with "
            + "the source's (status 1 if they differ).",
        options: [
            OptionSpec("from", value: "dir|url", required: true, completion: .directory, help: "The log to copy."),
            OptionSpec(
                "to", value: "dir|url", required: true, completion: .directory, help: "An empty log to copy it into."),
        ],
        examples: [
            "segue migrate --from /var/lib/segue --to 'postgresql:///segue?host=/run/postgresql'",
            "segue migrate --from 'postgresql://segue@db.example/segue' --to ./restored",
        ])

    static func run(_ inv: Invocation) throws {
        let (from, to) = (inv.parsed.value(required: "from"), inv.parsed.value(required: "to"))
        guard from != to else { throw UsageError("--from and --to are the same log (\(from)).") }
        let source = try LogSource.openLog(from)
        if let writer = source.writer() {
            Output.error(
                "warning: \(from) is open for writing by \(writer): what it appends after this copy's read is "
                    + "not in \(to). Stop it, and migrate again into an empty log, before serving \(to).")
        }
        removeStaleTemporaryFiles()
        let exported = temporaryFile("export")
        let readBack = temporaryFile("check")
        TemporaryFiles.removeOnSignal([exported, readBack])
        // Made new (exclusive): in a shared temp dir, a link someone left at the name is never followed.
        for file in [exported, readBack] { unlink(file) }
        defer {
            try? FileManager.default.removeItem(atPath: exported)
            try? FileManager.default.removeItem(atPath: readBack)
        }
        var progress = Progress("migrate: exporting \(from)")
        progress.update(0)
        let count: Int
        do { count = try source.exportJSONLines(to: exported, exclusive: true) } catch {
            throw IOFailure(error.message, store: error)
        }
        progress.finish()
        // A segued still writing the source may store more: only the ids of copied events come along.
        let commands = CommandsThrough(source, seq: Int64(count))

        let target = try WritableLog(to)
        var copied = false
        defer { target.close(keep: copied) }
        let held = target.store.lastSeq
        guard held == 0 else {
            let holds = held == 1 ? "1 event (seq 1)" : "\(held) events (seqs 1–\(held))"
            throw Refusal(
                .conflict,
                "\(to) already holds \(holds): migrate copies a log into an empty one only. Nothing was copied. "
                    + "Give a new database or data dir.")
        }
        guard let outcome = try StoreCommands.append(from: exported, to: target, commands: commands, inv) else {
            return
        }
        copied = true

        progress = Progress("migrate: comparing \(to)'s export with \(from)'s")
        progress.update(0)
        let sameCommands: Result<Int, CommandMismatch>
        do {
            try target.store.exportJSONLines(to: readBack, exclusive: true)
            sameCommands = try compare(commands, target.store)
        } catch {
            throw IOFailure(error.message)
        }
        progress.finish()
        guard FileManager.default.contentsEqual(atPath: exported, andPath: readBack) else {
            throw Refusal(
                .internal,
                "The copy in \(to) does not export byte for byte as \(from) does; check it with segue verify and "
                    + "do not use it.")
        }
        let commandCount: Int
        switch sameCommands {
        case .success(let count): commandCount = count
        case .failure(let mismatch):
            throw Refusal(
                .internal,
                "The copy in \(to) does not hold the command ids \(from) holds (\(mismatch.description)); do not use it."
            )
        }
        inv.print(
            [
                "copied": .int(outcome.count), "commands": .int(commandCount), "seq": .int(target.store.lastSeq),
                "from": .string(from), "to": .string(to),
            ],
            "Copied \(count.counted("event")) and \(commandCount.counted("command id")) from \(from) to \(to); "
                + "its export is byte-identical.")
    }

    /// Where two logs' stored commands first differ.
    struct CommandMismatch: Error, CustomStringConvertible {
        var source: CommandRecord?
        var copy: CommandRecord?
        var description: String {
            switch (source, copy) {
            case (let a?, let b?) where a.id == b.id: "command \"\(a.id)\" differs"
            case (let a?, let b?): "\"\(a.id)\" where the copy holds \"\(b.id)\""
            case (let a?, nil): "\"\(a.id)\" is missing"
            case (nil, let b?): "the copy holds \"\(b.id)\" besides"
            case (nil, nil): "none"
            }
        }
    }

    /// Reads both logs' stored commands in step, a page at a time: their count when every one is
    /// the same, else the first that differs.
    static func compare(_ source: any CommandSequence, _ copy: any CommandSequence) throws(StoreError) -> Result<
        Int, CommandMismatch
    > {
        var a = CommandCursor(source)
        var b = CommandCursor(copy)
        var count = 0
        while true {
            let (x, y) = (try a.next(), try b.next())
            if x == nil && y == nil { return .success(count) }
            guard x == y else { return .failure(CommandMismatch(source: x, copy: y)) }
            count += 1
        }
    }

    static func temporaryFile(_ name: String, pid: pid_t = getpid()) -> String {
        NSTemporaryDirectory() + "segue-migrate-\(pid)-\(name).jsonl"
    }

    /// The copies a migrate killed outright (SIGKILL, a power cut) left: as large as the log, they are
    /// removed by the next migrate once their process is gone.
    static func removeStaleTemporaryFiles() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())) ?? []
        for name in names where name.hasPrefix("segue-migrate-") && name.hasSuffix(".jsonl") {
            let fields = name.split(separator: "-")
            guard fields.count == 4, let pid = pid_t(fields[2]), kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + name)
        }
    }
}
