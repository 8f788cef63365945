import Foundation
import SegueStore

extension Engine {
    /// Builds the filter of the command ids stored at start on a thread of its own and hands it to
    /// the engine thread (`perform`), which joins it with the ids decided meanwhile (`KnownCommandIDs`).
    ///
    /// The walk reads through its own connection, a page of ids per read transaction, and stops
    /// early when the engine stops. Its thread runs at normal priority even when segued runs
    /// realtime (a thread inherits its creator's policy): the walk must never delay a frame.
    func loadCommandIDs() {
        let store = self.store
        let maxIDs = knownCommandIDs.maxIDs
        let log = self.log
        let thread = Thread { [weak self] in
            var normal = sched_param(sched_priority: 0)
            _ = sched_setscheduler(0, SCHED_OTHER, &normal)
            let started = WallClock.monotonic()
            let filter = Self.readCommandIDs(store, maxIDs: maxIDs, log: log) { self?.isStopping ?? true }
            let milliseconds = (WallClock.monotonic() - started) / 1_000_000
            guard let self else { return }
            self.perform { engine in
                engine.knownCommandIDs.finishLoading(with: filter)
                if engine.knownCommandIDs.phase == .ready {
                    engine.log(
                        6,
                        "Read the \(filter?.count ?? 0) stored command ids in \(milliseconds) ms; new ids skip the store lookup."
                    )
                }
            }
        }
        thread.name = "segue.command-ids"
        thread.start()
    }

    var isStopping: Bool { stopRequested.load(ordering: .relaxed) }

    /// The filter of every id in the store; nil when there are more than `maxIDs`, the read failed or
    /// `stopping` said so (the engine then looks every id up).
    static func readCommandIDs(
        _ store: EventStore, maxIDs: Int, log: EngineLog, stopping: () -> Bool
    ) -> CommandIDFilter? {
        do {
            let reader = try store.commandIDs()
            let count = try reader.count()
            guard count <= maxIDs else {
                log(
                    5,
                    "The log holds \(count) command ids, more than the \(maxIDs) the id filter takes; every new id is looked up in the store."
                )
                return nil
            }
            var filter = CommandIDFilter(expected: count, maxIDs: maxIDs)
            var full = false
            var checked = 0
            let finished = try reader.walk { bytes in
                if !filter.insert(CommandIDFilter.hash(bytes)) {
                    full = true
                    return false
                }
                checked += 1
                return checked & 0xFFF != 0 || !stopping()
            }
            guard finished, !full else { return nil }
            return filter
        } catch {
            log(4, "Reading the stored command ids failed (\(error)); every new id is looked up in the store.")
            return nil
        }
    }
}
