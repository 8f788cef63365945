import Foundation
import SegueCommandLine

/// What to run and how long: `--quick` shrinks every size and window for a smoke run under a minute.
struct BenchOptions {
    var quick = false
    var json = false
    /// `--keep`: the data dirs and daemon logs stay after a run that succeeded (a failed run keeps them).
    var keep = false
    /// Where the daemon's data directories and the raw fdatasync file live (a temp dir by default).
    var directory: String?
    /// Sections to run; all when empty.
    var only: Set<String> = []
    /// `--store postgres`: also segued on PostgreSQL (the `postgres` section), at `storeURL` or on a
    /// server of its own (scripts/pg-test-server.sh).
    var store = "sqlite"
    var storeURL: String?
    /// `--fanout`: only these (frame rate, navigators) cases of the fan-out section.
    var fanoutOnly: [(rate: Int, navigators: Int)]?

    static let sections = ["raw", "latency", "throughput", "gesture", "fanout", "relay", "scale", "store"]

    static let command = CommandConfiguration(
        name: "segue-bench", abstract: "A real segued against the raw limits it is built on, measured in the same run.",
        discussion: "See docs/performance.md for what each figure means and the latest results.",
        options: [
            .flag("quick", help: "Small sizes and short windows: a smoke run in under a minute."),
            .flag("json", help: "Print the figures as one JSON object instead of the table."),
            .flag(
                "keep",
                help: "Keep the data dirs and daemon logs (e.g. the generated 10-million-event log) after the run."),
            OptionSpec(
                "dir", value: "dir", completion: .directory,
                help: "Parent directory for the data dirs (default: the system temp dir)."),
            OptionSpec(
                "only", value: "section[,section...]", completion: .list(sections),
                help: "Run only these sections: \(sections.joined(separator: ", "))."),
            OptionSpec(
                "fanout", value: "rate:navigators[,...]",
                help: "Run only these cases of the fan-out section (e.g. 60:1000); each with 1 and 8 subscribers."),
            OptionSpec(
                "store", value: "sqlite|postgres", completion: .list(["sqlite", "postgres"]),
                help: "postgres: also run segued on PostgreSQL against the raw INSERT;COMMIT round trip."),
            OptionSpec(
                "store-url", value: "url",
                help: "The PostgreSQL server for --store postgres (default: a throwaway one, postgresql-15)."),
        ],
        examples: [
            "segue-bench --quick", "segue-bench --only fanout,store --json > bench.json",
            "segue-bench --store postgres --only latency,throughput",
            "segue-bench --only scale --keep --dir /var/tmp/bench", "segue-bench --only fanout --fanout 60:1000",
        ])

    /// What the command line asks for: the options, or help.
    enum Parsed {
        case run(BenchOptions)
        case help(String)
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> Parsed {
        do throws(UsageError) {
            return try read(arguments)
        } catch {
            var error = error
            error.command = "segue-bench"
            throw error
        }
    }

    private static func read(_ arguments: [String]) throws(UsageError) -> Parsed {
        let parsed = try command.parse(arguments)
        if parsed.help { return .help(command.help(path: "segue-bench")) }
        var options = BenchOptions()
        options.quick = parsed.flag("quick")
        options.json = parsed.flag("json")
        options.keep = parsed.flag("keep")
        options.directory = parsed.value("dir")
        options.store = parsed.value("store") ?? "sqlite"
        guard ["sqlite", "postgres"].contains(options.store) else {
            throw .invalidValue(options.store, for: "--store", "expected sqlite or postgres")
        }
        options.storeURL = parsed.value("store-url")
        if let list = parsed.value("only") {
            options.only = Set(list.split(separator: ",").map(String.init))
            if let bad = options.only.sorted().first(where: { !sections.contains($0) }) {
                throw .invalidValue(bad, for: "--only", "expected sections from \(sections.joined(separator: ", "))")
            }
        }
        if let list = parsed.value("fanout") {
            options.fanoutOnly = try list.split(separator: ",").map { item throws(UsageError) in
                let parts = item.split(separator: ":")
                guard parts.count == 2, let rate = Int(parts[0]), let navigators = Int(parts[1]), rate > 0,
                    navigators > 0
                else { throw .invalidValue(String(item), for: "--fanout", "expected rate:navigators, e.g. 60:1000") }
                return (rate, navigators)
            }
        }
        return .run(options)
    }

    func runs(_ section: String) -> Bool { only.isEmpty || only.contains(section) }

    // Sizes: full, then quick.
    var latencyPairs: Int { quick ? 150 : 5000 }
    var throughputSeconds: Double { quick ? 1 : 10 }
    var gestureSeconds: Double { quick ? 2 : 20 }
    /// (frame rate, navigators) pairs; each runs with 1 and then 8 subscribers.
    var fanoutCases: [(rate: Int, navigators: Int)] {
        if let fanoutOnly { return fanoutOnly }
        return quick ? [(60, 100), (120, 1000)] : [60, 120].flatMap { rate in [100, 1000, 5000].map { (rate, $0) } }
    }
    /// The fan-out cases measured beside a raw PUB publishing as many messages (`RawPublisher`).
    var rawPublishCases: [(rate: Int, navigators: Int)] { quick ? fanoutCases : [(60, 1000), (60, 5000)] }
    /// Seconds a batch of transitions outlasts its window (pushes take time to send).
    /// `relay`: how long the navigators animate through the relay chains.
    var relaySeconds: Double { quick ? 2 : 10 }
    var fanoutSlack: Double { quick ? 1 : 3.5 }
    var fanoutWindow: Double { quick ? 1 : 10 }
    /// The 1,000-navigator, 120 Hz, 8-subscriber window the target is stated over (60 s; transitions
    /// are capped at 60 s, so the window is what fits inside one batch of them).
    var fanoutLongWindow: Double { quick ? 1 : 54 }
    var idleNavigators: Int { quick ? 10_000 : 100_000 }
    var startupEvents: Int { quick ? 200_000 : 10_000_000 }
}
