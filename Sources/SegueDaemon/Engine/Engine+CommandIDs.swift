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
        let maxIDs = core.knownCommandIDs.maxIDs
        let logger = self.logger
        let thread = Thread(named: "segue-ids") { [weak self] in
            BackgroundThread.leaveRealtimePolicy()
            let started = WallClock.monotonic()
            let filter = Self.readCommandIDs(store, maxIDs: maxIDs, logger: logger) { self?.isStopping ?? true }
            let count = filter?.count ?? 0
            let handOff = CommandIDFilter.HandOff(consume filter)
            let milliseconds = (WallClock.monotonic() - started) / 1_000_000
            guard let self else { return }
            self.perform { engine in
                engine.core.knownCommandIDs.finishLoading(with: handOff.take())
                if engine.core.knownCommandIDs.phase == .ready {
                    engine.logger.info(
                        "Read the \(count) stored command ids in \(milliseconds) ms; new ids skip the store lookup."
                    )
                }
            }
        }
        thread.start()
    }

    var isStopping: Bool { stopRequested.load(ordering: .relaxed) }

    /// The filter of every id in the store; nil when there are more than `maxIDs`, the read failed or
    /// `stopping` said so (the engine then looks every id up).
    ///
    /// One walk collects the ids' hashes (8 bytes each, at most `maxIDs` of them), then the filter is
    /// sized for exactly that many: counting first (`SELECT COUNT(*)`) would read every leaf page of
    /// the `commands` table, replies included, a second time, in one long read transaction.
    static func readCommandIDs(
        _ store: any EventStoring, maxIDs: Int, logger: Logger, stopping: () -> Bool
    ) -> CommandIDFilter? {
        do {
            var hashes: [UInt64] = []
            var tooMany = false
            let finished = try store.commandIDs().walk(pageSize: 4096) { bytes in
                guard hashes.count < maxIDs else {
                    tooMany = true
                    return false
                }
                hashes.append(CommandIDFilter.hash(bytes))
                return hashes.count & 0xFFF != 0 || !stopping()
            }
            if tooMany {
                logger.notice(
                    "The log holds more than the \(maxIDs) command ids the id filter takes; every new id is looked up in the store."
                )
                return nil
            }
            guard finished else { return nil }
            var filter = CommandIDFilter(expected: hashes.count, maxIDs: maxIDs)
            for hash in hashes { filter.insert(hash) }
            return filter
        } catch {
            logger.warning("Reading the stored command ids failed (\(error)); every new id is looked up in the store.")
            return nil
        }
    }
}
