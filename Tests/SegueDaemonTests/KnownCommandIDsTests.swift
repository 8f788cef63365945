import Testing

@testable import SegueDaemon

/// The engine's gate in front of the store lookup (`KnownCommandIDs`): look up everything until the
/// loaded filter arrives, then only what it may hold; never skip a stored id.
@Suite struct KnownCommandIDsTests {
    static func loaded(_ ids: [String], maxIDs: Int = CommandIDFilter.defaultMaxIDs) -> CommandIDFilter {
        var filter = CommandIDFilter(expected: ids.count, maxIDs: maxIDs)
        for id in ids { filter.insert(CommandIDFilter.hash(id)) }
        return filter
    }

    @Test func whileLoadingEveryIdIsLookedUp() {
        var known = KnownCommandIDs()
        known.insert("decided")
        #expect(known.phase == .loading)
        let decided = known.needsLookup("decided")
        let new = known.needsLookup("new")
        #expect(decided && new)
        #expect(known.lookups == 2 && known.skipped == 0)
    }

    /// The loaded filter (ids stored at start) joined with the ids decided while it loaded.
    @Test func onceLoadedOnlyKnownIdsAreLookedUp() {
        var known = KnownCommandIDs()
        known.insert("decided while loading")
        known.finishLoading(with: Self.loaded(["stored-1", "stored-2"]))
        known.insert("decided after")
        #expect(known.phase == .ready)
        #expect(known.count == 4)
        for id in ["stored-1", "stored-2", "decided while loading", "decided after"] {
            let lookup = known.needsLookup(id)
            #expect(lookup, "\(id) must be looked up")
        }
        let new = known.needsLookup("new")
        #expect(!new)
        #expect(known.lookups == 4 && known.skipped == 1)
    }

    /// The background filter reaches the engine through a `HandOff`, which gives it up: the engine
    /// then holds the only reference to its slices, and the ids decided while it loaded are written
    /// into them in place (a copy would cost up to 16 MiB on the frame-loop thread).
    @Test func theHandedOverFilterIsJoinedInPlace() {
        var known = KnownCommandIDs()
        known.insert("decided while loading")
        let filter = Self.loaded(["stored"])
        let address = filter.firstSliceAddress
        let handOff = CommandIDFilter.HandOff(consume filter)
        known.finishLoading(with: handOff.take())
        #expect(handOff.take() == nil, "given up")
        #expect(known.phase == .ready && known.count == 2)
        #expect(known.filter?.firstSliceAddress == address, "joined in place, not copied")
        let decided = known.needsLookup("decided while loading")
        let stored = known.needsLookup("stored")
        #expect(decided && stored)
    }

    /// A failed read, or more ids than the filter takes (at start, while loading or later), turns the
    /// filter off: every id is looked up again, as without one.
    @Test(arguments: ["read failed", "too many loaded", "too many while loading", "too many after"])
    func withoutAFilterEveryIdIsLookedUp(how: String) {
        let maxIDs = 3
        var known = KnownCommandIDs(maxIDs: maxIDs)
        switch how {
        case "read failed":
            known.finishLoading(with: nil)
        case "too many loaded":
            known.insert("d")
            known.finishLoading(with: Self.loaded(["a", "b", "c"], maxIDs: maxIDs))
        case "too many while loading":
            for id in ["a", "b", "c", "d"] { known.insert(id) }
            known.finishLoading(with: Self.loaded([], maxIDs: maxIDs))
        default:
            known.finishLoading(with: Self.loaded(["a", "b"], maxIDs: maxIDs))
            #expect(known.phase == .ready)
            known.insert("c")
            known.insert("d")
        }
        #expect(known.phase == .off)
        let new = known.needsLookup("new")
        let stored = known.needsLookup("a")
        #expect(new && stored)
        #expect(known.count == 0 && known.bytes == 0)
        known.finishLoading(with: Self.loaded([]))
        #expect(known.phase == .off, "a late filter does not turn it back on")
    }
}
