import Foundation
import SegueCore
import SegueStore

extension Engine {
    /// How many snapshot rows one part of the pass judges: a part holds the store's writer, which
    /// appends wait for (parts of 500 rows put a durable push's p99 at 53 ms, against 1.6 ms).
    static let snapshotBacklogPart = 50
    /// The pause after a part, as a multiple of the part's own time: the pass takes at most a quarter
    /// of the writer's time.
    static let snapshotBacklogPause = 3

    /// Thins, once per log, the snapshots no checkpoint judged (`SnapshotBacklog`): those a build
    /// before 0.3.0 saved, or a PostgreSQL role that could not delete them. It runs behind the loop on
    /// the checkpoints' thread, a part at a time, so a checkpoint due meanwhile waits for one part
    /// only. A pass cut short (a stop, an error) starts again at the next start; the marker row says
    /// a pass went through.
    func thinSnapshotBacklog() {
        let store = self.store
        let logger = self.logger
        let worker = snapshotWriter
        let backlog = SnapshotBacklog(SnapshotThinning(checkpointEvery: options.checkpointEvery))
        worker.async {
            do throws(StoreError) {
                let marker = try store.snapshot(of: SnapshotBacklog.marker, atOrBefore: .max)
                let done = marker?.state["done"] == true
                // A role that may not delete leaves its checkpoints' snapshots unjudged: the marker
                // says so (a role may update a row it may not delete), for the start after a grant.
                guard try store.mayThinSnapshots() else {
                    if marker == nil || done { try store.saveSnapshots([SnapshotBacklog.pending]) }
                    return
                }
                guard !done else { return }
            } catch {
                return logger.warning("Could not look for snapshots to thin (\(error)); the next start looks again.")
            }
            Self.thin(backlog, store: store, worker: worker, logger: logger, started: WallClock.monotonic())
        }
    }

    private static func thin(
        _ backlog: SnapshotBacklog, store: any EventStoring, worker: SerialWorker, logger: Logger, started: Int64
    ) {
        var backlog = backlog
        let partStarted = WallClock.monotonic()
        do throws(StoreError) {
            try store.thin(&backlog, rows: snapshotBacklogPart)
            if backlog.done {
                try store.saveSnapshots([backlog.marker])
            }
        } catch {
            return logger.warning(
                "Thinning the snapshots checkpoints had not judged stopped at \(backlog.navigator) (\(error)); "
                    + "the next start goes through them again.")
        }
        // Said when there was something to do, or a part's worth to look through.
        let long = backlog.read >= snapshotBacklogPart
        if backlog.done {
            guard backlog.deleted > 0 || long else { return }
            return logger.notice(
                "Thinned the snapshots checkpoints had not judged (saved before 0.3.0, or without DELETE): "
                    + "deleted \(backlog.deleted) of \(backlog.read) rows in "
                    + "\((WallClock.monotonic() - started) / 1_000_000) ms, once (docs/operations.md, \"Disk use\").")
        }
        if backlog.read == snapshotBacklogPart {
            logger.notice("Thinning the snapshots checkpoints had not judged, behind the loop (once).")
        }
        // At least a millisecond, at most 0.1 s: a checkpoint queued behind waits no longer.
        let pause = Double((WallClock.monotonic() - partStarted) * Int64(snapshotBacklogPause)) / 1e9
        Thread.sleep(forTimeInterval: min(max(pause, 0.001), 0.1))
        worker.async { [backlog] in thin(backlog, store: store, worker: worker, logger: logger, started: started) }
    }
}
