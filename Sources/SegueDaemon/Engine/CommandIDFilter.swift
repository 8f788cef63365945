/// An insert-only filter of command ids: "certainly never stored" or "perhaps stored", so that a new
/// id (the usual case: real clients send one with every command) skips the store lookup.
///
/// A register-blocked Bloom filter (Putze, Sanders and Singler, "Cache-, Hash- and Space-Efficient
/// Bloom Filters", 2007): each id sets `bitsPerKey` bits of one 64-bit word, so a query costs one
/// memory access. At 16 bits of word per id, a full slice answers "perhaps" for about 0.5 % of new
/// ids (0.04 % at half full); those only pay the lookup they paid before the filter. There are never
/// false negatives: an id inserted is always answered "perhaps".
///
/// It grows without rehashing (the ids are not kept, only their bits) by adding slices, each as large
/// as all before it together (Almeida et al., "Scalable Bloom Filters", 2007): capacity stays between
/// one and two times the ids held, and each full slice adds its 0.5 % to the rate (the daemon sizes
/// the first slice for the ids stored at start, so a filter rarely has more than two). It refuses to
/// grow past `maxIDs`; the owner then drops it and looks every id up, as without a filter.
struct CommandIDFilter {
    /// Bits of filter per id of capacity: 2 bytes per id.
    static let bitsPerID = 16
    /// Bits set per id, within one word.
    static let bitsPerKey = 8
    /// The smallest slice: 65,536 ids, 128 KiB.
    static let minimumCapacity = 1 << 16
    /// The most ids a filter takes (8,388,608): at most 16 MiB of slices.
    static let defaultMaxIDs = 1 << 23

    private struct Slice {
        var words: [UInt64]
        var mask: Int
    }

    private var slices: [Slice] = []
    /// Ids inserted (an id inserted twice counts twice; it only makes the filter fill sooner).
    private(set) var count = 0
    /// Ids the slices are sized for, together.
    private(set) var capacity = 0
    let maxIDs: Int

    /// A filter sized for `expected` ids (rounded up to a power of two, at least `minimumCapacity`,
    /// at most `maxIDs`).
    init(expected: Int = 0, maxIDs: Int = CommandIDFilter.defaultMaxIDs) {
        precondition(maxIDs > 0)
        self.maxIDs = maxIDs
        addSlice(capacity: Self.roundedCapacity(min(max(expected, 1), maxIDs)))
    }

    /// The bytes the slices hold.
    var bytes: Int { slices.reduce(0) { $0 + $1.words.count * 8 } }

    /// Where the first slice's words live: tests check that handing the filter over moves them.
    var firstSliceAddress: UInt { slices[0].words.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } }

    /// Adds the id with hash `hash`; false (and nothing added) when the filter is full at `maxIDs`.
    @discardableResult
    mutating func insert(_ hash: UInt64) -> Bool {
        guard count < maxIDs else { return false }
        if count >= capacity { addSlice(capacity: capacity) }
        let (word, bits) = Self.place(hash)
        let last = slices.count - 1
        slices[last].words[word & slices[last].mask] |= bits
        count += 1
        return true
    }

    /// False only for an id never inserted.
    func mightContain(_ hash: UInt64) -> Bool {
        let (word, bits) = Self.place(hash)
        for slice in slices where slice.words[word & slice.mask] & bits == bits { return true }
        return false
    }

    private mutating func addSlice(capacity: Int) {
        let words = max(1, capacity * Self.bitsPerID / 64)
        slices.append(Slice(words: [UInt64](repeating: 0, count: words), mask: words - 1))
        self.capacity += capacity
    }

    private static func roundedCapacity(_ ids: Int) -> Int {
        var capacity = minimumCapacity
        while capacity < ids { capacity <<= 1 }
        return capacity
    }

    /// The word (before masking to a slice) and the `bitsPerKey` bits an id sets in it: the word from
    /// the hash's high half, the bits from six-bit fields of a second mix of it.
    @inline(__always)
    private static func place(_ hash: UInt64) -> (word: Int, bits: UInt64) {
        var positions = mix(hash ^ 0x9E37_79B9_7F4A_7C15)
        var bits: UInt64 = 0
        for _ in 0..<bitsPerKey {
            bits |= 1 << (positions & 63)
            positions >>= 6
        }
        return (Int(truncatingIfNeeded: hash >> 32), bits)
    }

    // MARK: Hashing

    /// Chosen once per process: the filter lives in memory only, and a client cannot aim ids at one
    /// word (that would only cost lookups, never a wrong answer).
    static let seed = UInt64.random(in: .min ... .max)

    /// The hash of an id's UTF-8 bytes. Bytes, not `String` equality: the store's primary key
    /// compares bytes, and the filter must agree with it.
    static func hash(_ id: String) -> UInt64 {
        var id = id
        return id.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
    }

    /// The hash of an id as the store returns it (its UTF-8 bytes).
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        // FNV-1a over the bytes (ids are short), then a full avalanche so every bit of the result
        // depends on every byte.
        var h = 0xCBF2_9CE4_8422_2325 ^ seed
        for byte in bytes {
            h ^= UInt64(byte)
            h &*= 0x0000_0100_0000_01B3
        }
        return mix(h ^ UInt64(bytes.count))
    }

    /// splitmix64's finalizer.
    @inline(__always)
    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
