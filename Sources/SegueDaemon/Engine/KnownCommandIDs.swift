/// What the engine knows about the command ids in the store: whether a new request's id can skip the
/// store lookup (engine thread only).
///
/// The filter of stored ids is built twice over and joined: a background task reads every id stored
/// when the daemon started (`EventStore.commandIDs()`), while the engine notes every id it decides
/// from the start (`insert`, before its commit, so a failed commit leaves only a false positive).
/// Until the background filter arrives (`finishLoading`) every id is looked up, as without a filter;
/// then the ids noted meanwhile are added to it, and from there on an id the filter has never seen is
/// new. Nothing else writes command ids while the daemon runs, so the two together cover the store.
struct KnownCommandIDs {
    enum Phase: String {
        /// The background read has not finished: every id is looked up.
        case loading
        /// The filter holds every stored id: only ids it may hold are looked up.
        case ready
        /// No filter (too many ids, or the read failed): every id is looked up.
        case off
    }

    private(set) var phase = Phase.loading
    private(set) var filter: CommandIDFilter?
    /// Hashes of ids decided while loading, added to the loaded filter when it arrives.
    private var pending: [UInt64] = []
    let maxIDs: Int
    /// Ids looked up in the store, and ids answered "new" by the filter alone (for `stats`).
    private(set) var lookups: Int64 = 0
    private(set) var skipped: Int64 = 0

    init(maxIDs: Int = CommandIDFilter.defaultMaxIDs) { self.maxIDs = maxIDs }

    /// Ids the filter holds (0 unless ready).
    var count: Int { filter?.count ?? 0 }
    /// The filter's memory (0 unless ready).
    var bytes: Int { filter?.bytes ?? 0 }

    /// Notes an id the engine is about to store.
    mutating func insert(_ id: String) {
        switch phase {
        case .loading:
            pending.append(CommandIDFilter.hash(id))
            if pending.count > maxIDs { turnOff() }
        case .ready:
            if filter?.insert(CommandIDFilter.hash(id)) != true { turnOff() }
        case .off:
            break
        }
    }

    /// Whether `id` has to be looked up in the store: false only when the filter is ready and has
    /// never seen it. Counts the answer.
    mutating func needsLookup(_ id: String) -> Bool {
        if phase == .ready, let filter, !filter.mightContain(CommandIDFilter.hash(id)) {
            skipped += 1
            return false
        }
        lookups += 1
        return true
    }

    /// Takes the background filter of the ids stored at start (nil: it could not be built), adds the
    /// ids decided since, and becomes ready (or off).
    ///
    /// `loaded` is consumed and moved, never copied: given the only reference to the filter (from
    /// `CommandIDFilter.HandOff.take()`), the inserts write into its slices in place, where a second
    /// reference would make the first insert copy them all (up to 16 MiB) on the engine thread.
    mutating func finishLoading(with loaded: consuming CommandIDFilter?) {
        guard phase == .loading else { return }
        guard var joined = loaded.take() else { return turnOff() }
        for hash in pending where !joined.insert(hash) { return turnOff() }
        pending = []
        filter = consume joined
        phase = .ready
    }

    private mutating func turnOff() {
        phase = .off
        filter = nil
        pending = []
    }
}
