import Testing

@testable import SegueDaemon

/// The filter of stored command ids (`CommandIDFilter`): never a false negative, few false positives,
/// bounded memory.
@Suite struct CommandIDFilterTests {
    /// (ids inserted, the filter's first size): from a small filter that grows by slices to one
    /// sized for all of them at once.
    static let sizes: [(Int, Int)] = [(0, 0), (1, 0), (1000, 0), (200_000, 0), (200_000, 200_000), (70_000, 1 << 20)]

    @Test(arguments: sizes)
    func everyInsertedIdIsFound(count: Int, expected: Int) {
        var filter = CommandIDFilter(expected: expected)
        let refused = (0..<count).filter { !filter.insert(CommandIDFilter.hash("id-\($0)")) }
        #expect(refused.isEmpty)
        #expect(filter.count == count)
        #expect((0..<count).allSatisfy { filter.mightContain(CommandIDFilter.hash("id-\($0)")) })
        #expect(filter.capacity >= max(count, 1) && filter.capacity <= 2 * max(count, expected, 1 << 16))
        #expect(filter.bytes == filter.capacity * CommandIDFilter.bitsPerID / 8)
    }

    /// Full to its capacity (the worst case), ids never inserted are rarely "perhaps": well under 1 %.
    @Test(arguments: [0, 100_000])
    func fewNewIdsAreTakenForStored(expected: Int) {
        var filter = CommandIDFilter(expected: expected)
        for index in 0..<filter.capacity { filter.insert(CommandIDFilter.hash("stored-\(index)")) }
        let probes = 100_000
        let positives = (0..<probes).filter { filter.mightContain(CommandIDFilter.hash("new-\($0)")) }.count
        #expect(positives < probes / 100, "\(positives) false positives in \(probes)")
    }

    /// Past `maxIDs` it takes nothing more (the owner then drops it): memory stays bounded.
    @Test func itRefusesIdsPastItsLimit() {
        var filter = CommandIDFilter(maxIDs: 150_000)
        let refused = (0..<150_000).filter { !filter.insert(CommandIDFilter.hash("id-\($0)")) }
        #expect(refused.isEmpty)
        let oneMore = filter.insert(CommandIDFilter.hash("one more"))
        #expect(!oneMore)
        #expect(filter.count == 150_000)
        #expect(filter.bytes <= 4 * 150_000 * CommandIDFilter.bitsPerID / 8)
        #expect((0..<150_000).allSatisfy { filter.mightContain(CommandIDFilter.hash("id-\($0)")) })
    }

    /// The hash is of the UTF-8 bytes, as the store compares keys: a string and its bytes from the store
    /// agree, canonically equivalent spellings (which `String` calls equal) do not.
    @Test(arguments: ["", "k", "id with spaces", "ü", "e\u{301}", "nul\u{0}inside", String(repeating: "x", count: 300)])
    func theHashIsOfTheBytes(id: String) {
        let bytes = Array(id.utf8)
        #expect(bytes.withUnsafeBytes { CommandIDFilter.hash($0) } == CommandIDFilter.hash(id))
    }

    @Test func canonicallyEquivalentSpellingsAreDifferentIds() {
        #expect("\u{e9}" == "e\u{301}")
        #expect(CommandIDFilter.hash("\u{e9}") != CommandIDFilter.hash("e\u{301}"))
    }
}
