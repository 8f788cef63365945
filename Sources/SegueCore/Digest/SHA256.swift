/// SHA-256 (FIPS 180-4), written out because `SegueCore` imports nothing but Swift.
///
/// Chosen for the state digest because every client has it at hand (Python's `hashlib.sha256`, the
/// browser's `crypto.subtle`, CryptoKit, OpenSSL): a frontend recomputes a digest with its
/// standard library alone. FNV-1a would be shorter here, but is in no standard library.
package struct SHA256: Sendable {
    private var h: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
    )

    private init() {}

    package static func hash(_ bytes: [UInt8]) -> Digest { bytes.withUnsafeBufferPointer { hash($0) } }

    /// The digest of `bytes`, in one pass and without allocating: the daemon hashes a state for
    /// every event it appends.
    package static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> Digest {
        var hasher = SHA256()
        let whole = bytes.count / 64 * 64
        for start in stride(from: 0, to: whole, by: 64) {
            hasher.compress(UnsafeBufferPointer(rebasing: bytes[start..<start + 64]))
        }
        // The padding: a 1 bit, zeros, then the message length in bits as a 64-bit big-endian
        // integer, in one block or, when fewer than 9 bytes are left after the tail, two.
        let tail = bytes.count - whole
        let blocks = tail + 9 <= 64 ? 1 : 2
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { last in
            last.initialize(repeating: 0)
            if tail > 0 { last.baseAddress!.update(from: bytes.baseAddress! + whole, count: tail) }
            last[tail] = 0x80
            let bits = UInt64(bytes.count) &* 8
            for index in 0..<8 { last[blocks * 64 - 1 - index] = UInt8(truncatingIfNeeded: bits >> UInt64(8 * index)) }
            for block in 0..<blocks {
                hasher.compress(UnsafeBufferPointer(rebasing: last[block * 64..<block * 64 + 64]))
            }
        }
        let h = hasher.h
        return Digest(
            UInt64(h.0) << 32 | UInt64(h.1), UInt64(h.2) << 32 | UInt64(h.3), UInt64(h.4) << 32 | UInt64(h.5),
            UInt64(h.6) << 32 | UInt64(h.7))
    }

    /// One 64-byte block into the chaining value.
    private mutating func compress(_ block: UnsafeBufferPointer<UInt8>) {
        // The message schedule on the stack: a block costs no allocation.
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            schedule(block, into: w)
            rounds(w)
        }
    }

    private func schedule(_ block: UnsafeBufferPointer<UInt8>, into w: UnsafeMutableBufferPointer<UInt32>) {
        for i in 0..<16 {
            w[i] =
                UInt32(block[4 * i]) << 24 | UInt32(block[4 * i + 1]) << 16 | UInt32(block[4 * i + 2]) << 8
                | UInt32(block[4 * i + 3])
        }
        for i in 16..<64 {
            let s0 = Self.rotr(w[i - 15], 7) ^ Self.rotr(w[i - 15], 18) ^ (w[i - 15] &>> 3)
            let s1 = Self.rotr(w[i - 2], 17) ^ Self.rotr(w[i - 2], 19) ^ (w[i - 2] &>> 10)
            w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
        }
    }

    private mutating func rounds(_ w: UnsafeMutableBufferPointer<UInt32>) {
        Self.k.withUnsafeBufferPointer { rounds(w, k: $0) }
    }

    /// Eight rounds per pass, each on the working variables renamed in place (as FIPS 180-4's
    /// reference code and OpenSSL unroll them): a rolled loop spends a third of its instructions
    /// moving `a`…`h` down one register per round.
    private mutating func rounds(_ w: UnsafeMutableBufferPointer<UInt32>, k: UnsafeBufferPointer<UInt32>) {
        var (a, b, c, d, e, f, g, hh) = h
        for i in stride(from: 0, to: 64, by: 8) {
            Self.round(a, b, c, &d, e, f, g, &hh, k[i] &+ w[i])
            Self.round(hh, a, b, &c, d, e, f, &g, k[i + 1] &+ w[i + 1])
            Self.round(g, hh, a, &b, c, d, e, &f, k[i + 2] &+ w[i + 2])
            Self.round(f, g, hh, &a, b, c, d, &e, k[i + 3] &+ w[i + 3])
            Self.round(e, f, g, &hh, a, b, c, &d, k[i + 4] &+ w[i + 4])
            Self.round(d, e, f, &g, hh, a, b, &c, k[i + 5] &+ w[i + 5])
            Self.round(c, d, e, &f, g, hh, a, &b, k[i + 6] &+ w[i + 6])
            Self.round(b, c, d, &e, f, g, hh, &a, k[i + 7] &+ w[i + 7])
        }
        h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e, h.5 &+ f, h.6 &+ g, h.7 &+ hh)
    }

    /// One round: `d += T1` and `h = T1 + T2`, the rest of the shift being the caller's renaming.
    /// Ch and Maj in their equivalent forms with one operation fewer: `g ^ (e & (f ^ g))` and
    /// `(a & b) | (c & (a | b))`.
    @inline(__always)
    private static func round(
        _ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32, _ e: UInt32, _ f: UInt32, _ g: UInt32,
        _ h: inout UInt32, _ kw: UInt32
    ) {
        let t1 = h &+ (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) &+ (g ^ (e & (f ^ g))) &+ kw
        let t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) &+ ((a & b) | (c & (a | b)))
        d = d &+ t1
        h = t1 &+ t2
    }

    @inline(__always)
    private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { x &>> n | x &<< (32 &- n) }

    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    /// A SHA-256 digest: 32 bytes, as four big-endian 64-bit words.
    package struct Digest: Equatable, Hashable, Sendable {
        private let words: (UInt64, UInt64, UInt64, UInt64)

        init(_ a: UInt64, _ b: UInt64, _ c: UInt64, _ d: UInt64) { words = (a, b, c, d) }

        package static func == (lhs: Digest, rhs: Digest) -> Bool { lhs.words == rhs.words }

        package func hash(into hasher: inout Hasher) {
            hasher.combine(words.0)
            hasher.combine(words.1)
            hasher.combine(words.2)
            hasher.combine(words.3)
        }

        /// Lowercase hex, 64 characters: Python's `hashlib.sha256(...).hexdigest()`.
        package var hex: String {
            String(unsafeUninitializedCapacity: 64) { out in
                writeHex(to: out)
                return 64
            }
        }

        /// `hex`'s 64 digits, written into the first 64 bytes of `out`.
        func writeHex(to out: UnsafeMutableBufferPointer<UInt8>) {
            for index in 0..<4 {
                let word = index == 0 ? words.0 : index == 1 ? words.1 : index == 2 ? words.2 : words.3
                for nibble in 0..<16 {
                    let value = UInt8(truncatingIfNeeded: word >> UInt64(60 - 4 * nibble)) & 0xF
                    out[16 * index + nibble] = value < 10 ? 0x30 + value : 0x57 + value
                }
            }
        }

        /// Reads `hex`'s spelling back: 64 lowercase hex digits; nil for anything else.
        package init?(hex: String) {
            let digits = Array(hex.utf8)
            guard digits.count == 64 else { return nil }
            var words: [UInt64] = [0, 0, 0, 0]
            for (index, digit) in digits.enumerated() {
                let value: UInt8
                switch digit {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): value = digit - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): value = digit - UInt8(ascii: "a") + 10
                default: return nil
                }
                words[index / 16] = words[index / 16] << 4 | UInt64(value)
            }
            self.init(words[0], words[1], words[2], words[3])
        }

        /// The four words, most significant first (the 32 bytes read as big-endian integers).
        var wordList: [UInt64] { [words.0, words.1, words.2, words.3] }

        /// The first 8 bytes as a big-endian integer (`int(hexdigest()[:16], 16)` in Python).
        package var leading64: UInt64 { words.0 }
    }
}
