import Testing

@testable import SegueCore

/// The hand-written SHA-256 against FIPS 180-4's examples and Python's `hashlib` at every padding
/// boundary (a message that leaves 55, 56, 63, 64 and 65 bytes for the last block).
@Suite struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (String(repeating: "a", count: 55), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
        (String(repeating: "a", count: 56), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
        (String(repeating: "a", count: 63), "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"),
        (String(repeating: "a", count: 64), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
        (String(repeating: "a", count: 65), "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"),
        (String(repeating: "a", count: 1000), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3"),
    ])
    func digestMatchesTheStandard(message: String, hex: String) {
        #expect(SHA256.hash(Array(message.utf8)).hex == hex)
    }

    /// Every length from 0 to 200 bytes (one or two padding blocks, tails of every size) hashes to
    /// a distinct digest, and a hash depends on every byte.
    @Test func everyLengthAndEveryByteCounts() {
        var seen: Set<String> = []
        for length in 0...200 { seen.insert(SHA256.hash(Array(repeating: 0x61, count: length)).hex) }
        #expect(seen.count == 201)
        let base = Array(repeating: UInt8(0x61), count: 130)
        for index in [0, 63, 64, 127, 129] {
            var changed = base
            changed[index] ^= 1
            #expect(SHA256.hash(changed) != SHA256.hash(base), "byte \(index)")
        }
    }

    @Test func leading64IsTheFirstSixteenHexDigits() {
        let digest = SHA256.hash(Array("abc".utf8))
        #expect(digest.leading64 == 0xba78_16bf_8f01_cfea)
        #expect(StateDigest.fleetHex(digest.leading64) == String(digest.hex.prefix(16)))
    }
}
