import Foundation

/// What to run and how long: `--quick` shrinks every size and window for a smoke run under a minute.
struct BenchOptions {
    var quick = false
    var json = false
    /// Where the daemon's data directories and the raw fdatasync file live (a temp dir by default).
    var directory: String?
    /// Sections to run; all when empty.
    var only: Set<String> = []

    static let sections = ["raw", "latency", "throughput", "gesture", "fanout", "scale", "store"]

    static let usage = """
        usage: segue-bench [--quick] [--json] [--dir DIR] [--only SECTION[,SECTION...]]
          --quick   small sizes and short windows: a smoke run in under a minute
          --json    print the figures as one JSON object instead of the table
          --dir     parent directory for the data dirs (default: the system temp dir)
          --only    \(sections.joined(separator: ", "))
        """

    init(arguments: [String]) throws {
        var args = arguments[...]
        while let arg = args.popFirst() {
            switch arg {
            case "--quick": quick = true
            case "--json": json = true
            case "--dir":
                guard let value = args.popFirst() else { throw BenchError("--dir needs a directory.\n\(Self.usage)") }
                directory = value
            case "--only":
                guard let value = args.popFirst() else { throw BenchError("--only needs a section.\n\(Self.usage)") }
                only = Set(value.split(separator: ",").map(String.init))
                if let bad = only.first(where: { !Self.sections.contains($0) }) {
                    throw BenchError("Unknown section \(bad).\n\(Self.usage)")
                }
            case "-h", "--help": throw BenchError(Self.usage)
            default: throw BenchError("Unknown option \(arg).\n\(Self.usage)")
            }
        }
    }

    func runs(_ section: String) -> Bool { only.isEmpty || only.contains(section) }

    // Sizes: full, then quick.
    var latencyPairs: Int { quick ? 150 : 5000 }
    var throughputSeconds: Double { quick ? 1 : 10 }
    var gestureSeconds: Double { quick ? 2 : 20 }
    /// (frame rate, navigators) pairs; each runs with 1 and then 8 subscribers.
    var fanoutCases: [(rate: Int, navigators: Int)] {
        quick ? [(60, 100), (120, 1000)] : [60, 120].flatMap { rate in [100, 1000, 5000].map { (rate, $0) } }
    }
    /// Seconds a batch of transitions outlasts its window (pushes take time to send).
    var fanoutSlack: Double { quick ? 1 : 3.5 }
    var fanoutWindow: Double { quick ? 1 : 10 }
    /// The 1,000-navigator, 120 Hz, 8-subscriber window the target is stated over (60 s; transitions
    /// are capped at 60 s, so the window is what fits inside one batch of them).
    var fanoutLongWindow: Double { quick ? 1 : 54 }
    var idleNavigators: Int { quick ? 10_000 : 100_000 }
    var startupEvents: Int { quick ? 200_000 : 10_000_000 }
}
