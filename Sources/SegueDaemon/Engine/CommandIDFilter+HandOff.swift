import Synchronization

extension CommandIDFilter {
    /// Carries the filter built in the background to the engine thread and gives it up there, so the
    /// engine holds the only reference to its slices.
    ///
    /// A closure that captured the filter itself would keep a second reference to its arrays for as
    /// long as it lives: the engine's first insert (the ids it decided while the filter loaded) would
    /// then copy every slice, up to 16 MiB, on the frame-loop thread. `take()` moves the filter out.
    final class HandOff: Sendable {
        private let filter: Mutex<CommandIDFilter?>

        init(_ filter: consuming CommandIDFilter?) { self.filter = Mutex(filter) }

        /// The filter, once: later calls return nil.
        func take() -> CommandIDFilter? { filter.withLock { $0.take() } }
    }
}
