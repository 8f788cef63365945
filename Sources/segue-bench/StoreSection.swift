import SegueStore

/// The store-level figures of the event-store issue, from `StoreBenchmark` (one process, one run):
/// commit latency next to raw `write`+`fdatasync` and a plain SQLite insert, group commit under 16
/// producers, rebuild speed, and opening a large log.
enum StoreSection {
    static func figures(directory: String, largeLogEvents: Int) throws -> [Figure] {
        let results = try StoreBenchmark.run(directory: directory, largeLogEvents: largeLogEvents) { m in
            Report.progress("  \(m.name): \(m.value) \(m.unit)")
        }
        let fsync = results.first { $0.name == "raw write+fdatasync" }?.value
        return results.map { m in
            var figure = Figure(section: "store", name: m.name, value: m.value, unit: m.unit, detail: m.detail)
            switch m.name {
            case "one-event durable commit":
                figure.limit = fsync
                figure.limitName = "raw write+fdatasync, interleaved"
                figure.target = .atMost(1.2)
            case "one-event durable append via committer thread", "raw SQLite insert, transaction per row":
                figure.limit = fsync
                figure.limitName = "raw write+fdatasync, interleaved"
            case "group commit, 16 producers":
                figure.limit = 200_000
                figure.limitName = "target"
                figure.target = .atLeast(1)
            case "rebuild (read all events)":
                figure.limit = 1_000_000
                figure.limitName = "target"
                figure.target = .atLeast(1)
            case "open + first read, deferred check":
                figure.limit = 1000
                figure.limitName = "1 s"
                figure.target = .atMost(1)
            default: break
            }
            return figure
        }
    }
}
