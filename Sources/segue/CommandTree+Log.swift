import SegueCommandLine

/// The commands that read or write a log outside the daemon's sockets, or print its events: `log`
/// (through the daemon), `export`, `import` and `verify` (the store itself, docs/cli.md).
extension CommandTree {
    static let log = CommandConfiguration(
        name: "log", abstract: "Print events from the log.",
        options: [
            OptionSpec("navigator", value: "name", help: "Only this navigator."),
            OptionSpec("after", value: "seq", help: "Start after this seq (default 0)."),
            OptionSpec("limit", value: "n", help: "At most this many events."),
            .flag(
                "follow", short: "f",
                help:
                    "Keep printing new events as they are published; waits out a stopped daemon, exits 1 if it comes back on an older copy of its log."
            ),
            OptionSpec(
                "type", value: "type", repeats: true,
                help: "Only events of this type; a type ending in '.' is a prefix (transition.). Repeatable."),
            OptionSpec(
                "since", value: "time",
                help: "Only events from this time: 10m, 2h, 1d ago, 2026-12-01T09:00 (local) or 2026-12-01T08:00:00Z."),
            OptionSpec("until", value: "time", help: "Only events up to this time (same forms as --since)."),
            .flag("utc", help: "Print times in UTC (ISO 8601) instead of local time."),
            .flag("compact", help: "Fold each run of interaction.updated into one line."),
        ],
        examples: [
            "segue log --navigator main", "segue log --follow --json", "segue log --since 10m --compact",
            "segue log --type transition. --utc",
        ])

    static let export = CommandConfiguration(
        name: "export", abstract: "Write a data dir's (or PostgreSQL database's) log as JSON Lines.",
        discussion:
            "Reads the store directly and only reads it (no schema migration), so it is safe on a running "
            + "daemon's data dir; it sees the events committed when it starts.",
        options: [
            OptionSpec("data-dir", value: "dir|url", required: true, completion: .directory, help: Self.storeHelp),
            OptionSpec(
                "output", short: "o", value: "file", completion: .file, help: "Write here instead of stdout."),
        ],
        examples: ["segue export --data-dir /var/lib/segue -o log.jsonl"])

    static let `import` = CommandConfiguration(
        name: "import", abstract: "Append a JSON Lines export to a data dir's log.",
        discussion:
            "Writes the store directly, so it is refused while a segued runs on the data dir. The file must "
            + "continue the log, and the log followed by the file is checked as verify would before anything "
            + "is written: a file that fails leaves the data dir as it was (status 1). The file is read one "
            + "event at a time, so a log of any length imports in about the same memory.",
        arguments: [
            ArgumentSpec("file", completion: .file, help: "The JSON Lines file; - reads it from standard input.")
        ],
        options: [
            OptionSpec("data-dir", value: "dir|url", required: true, completion: .directory, help: Self.storeHelp)
        ],
        examples: [
            "segue import --data-dir ./restored log.jsonl",
            "ssh old-host segue export --data-dir /var/lib/segue | segue import --data-dir ./restored -",
        ])

    static let verify = CommandConfiguration(
        name: "verify", abstract: "Check a data dir (SQLite integrity and the log) or an export file.",
        discussion:
            "Folds every event through the navigation core: seqs and revisions gapless, every event one the "
            + "core can read, frames never going back. Status 1 for any problem found (a line that is not "
            + "an event included), 74 when the file or data dir cannot be read.",
        arguments: [
            ArgumentSpec(
                "file", optional: true, completion: .file,
                help: "A JSON Lines export, or a data dir or postgresql:// URL (as --data-dir).")
        ],
        options: [OptionSpec("data-dir", value: "dir|url", completion: .directory, help: Self.storeHelp)],
        examples: ["segue verify --data-dir ./.segue", "segue verify /var/lib/segue", "segue verify log.jsonl"])
}
