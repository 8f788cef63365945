import Foundation
import SegueCore
import SegueStore

/// Writes a daemon-readable log of real navigation events straight through the store, the way the
/// daemon would have written it: events decided by `Fleet`, checkpoints every 10,000 events.
///
/// The checkpoint layout (per-navigator snapshots plus a `#checkpoint` marker row holding the frame
/// and time) is the daemon's, from `EngineCore+Log.swift`; start-up reads the newest marker, then folds
/// only the tail after it. Checkpoints thin older snapshots as a daemon with `snapshotEvery` 10,000
/// does, and the `#thinned` row says no older snapshot is left unjudged, so a daemon's first start
/// has no pass to run.
enum LogGenerator {
    static let checkpointMarker = "#checkpoint"

    /// Returns seconds taken. 100 navigators alternate non-animated push and pop (two events each).
    static func generate(directory: String, events: Int, navigators: Int = 100, checkpointEvery: Int = 10_000) throws
        -> Double
    {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let store = try EventStore(
            path: directory + "/segue.db", durability: .relaxed, check: .deferred(report: { _ in }))
        defer { store.close() }
        var fleet = Fleet(clock: try FrameClock(rate: 60))
        let started = Bench.monotonic()
        // Commands 200 µs apart, ending about now: times and frames stay in the past for the daemon.
        var time = Bench.wallClock() - Int64(events / 2 + navigators) * 200_000 - 60_000_000_000
        var batch: [EventRecord] = []
        batch.reserveCapacity(25_000)
        var dirty = Set<String>()
        var lastCheckpoint: Int64 = 0
        let thinning = SnapshotThinning(checkpointEvery: checkpointEvery)
        let names = (0..<navigators).map { "s\($0)" }
        let still = TransitionOptions(animated: false)
        var step = 0
        while fleet.lastSeq < Int64(events) {
            let index = step % navigators
            let command: NavigationCommand =
                step < navigators
                ? .create(root: ScreenSpec(name: "Home"), config: NavigatorConfig())
                : (step / navigators) % 2 == 1 ? .push(ScreenSpec(name: "Detail"), still) : .pop(still)
            let execution = fleet.execute(command, CommandEnvelope(), navigator: names[index], time: time)
            if let error = execution.error { throw BenchError("Generating the log: \(error.message)") }
            batch += execution.clockEvents
            batch += execution.events
            dirty.insert(names[index])
            time += 200_000
            step += 1
            if batch.count >= 20_000 {
                try store.append(AppendUnit(events: batch))
                batch.removeAll(keepingCapacity: true)
            }
            if fleet.lastSeq - lastCheckpoint >= Int64(checkpointEvery) {
                if !batch.isEmpty {
                    try store.append(AppendUnit(events: batch))
                    batch.removeAll(keepingCapacity: true)
                }
                let seq = fleet.lastSeq
                var snapshots = dirty.map { name in
                    let state = fleet.navigators[name]!
                    return Snapshot(navigator: name, seq: seq, revision: state.revision, state: state.json)
                }
                snapshots.append(
                    Snapshot(
                        navigator: checkpointMarker, seq: seq, revision: 0,
                        state: ["frame": .int(fleet.lastFrame), "time": .int(fleet.lastTime)]))
                try store.saveSnapshots(snapshots, thinning: thinning)
                dirty.removeAll(keepingCapacity: true)
                lastCheckpoint = seq
            }
        }
        if !batch.isEmpty { try store.append(AppendUnit(events: batch)) }
        try store.saveSnapshots([SnapshotBacklog(thinning).marker])
        store.flush()
        return Double(Bench.monotonic() - started) / 1e9
    }
}
