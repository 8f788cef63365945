import SeededRandom
import SegueCore
import Testing

/// Property tests over thousands of seeded random trees: what we write, we read back identically, and
/// what we read, we write back byte for byte.
@Suite struct JSONRoundTripTests {
    @Test(arguments: [0x5E6E_0001, 0x5E6E_0002, 0x5E6E_0003, 0x5E6E_0004] as [UInt64])
    func serializeThenParseIsIdentity(_ seed: UInt64) throws {
        var generator = RandomJSON(rng: SplitMix64(seed: seed))
        for _ in 0..<1_000 {
            let value = generator.value()
            let bytes = value.serializedBytes()
            let parsed = try JSON.parse(bytes)
            #expect(identical(parsed, value), "\(value.serialized())")
            #expect(parsed == value)
            #expect(parsed.serializedBytes() == bytes, "the same value always yields the same bytes")
            #expect(identical(try JSON.parse(value.prettyPrinted()), value))
            #expect(value.serialized().utf8.elementsEqual(bytes))
        }
    }

    /// Mutated documents must either parse or fail with a `JSONError` (never trap), and whatever
    /// parses must serialize to a canonical form that is a fixed point.
    @Test func mutatedInputNeverTraps() {
        var generator = RandomJSON(rng: SplitMix64(seed: 0xF022))
        var rng = SplitMix64(seed: 0xF023)
        var rejected = 0
        for _ in 0..<3_000 {
            var bytes = generator.value(depth: 3).serializedBytes()
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let index = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: bytes[index] = UInt8.random(in: 0...255, using: &rng)
                case 1: bytes.remove(at: index)
                default: bytes.insert(Array(#"{}[],:"\-0e."#.utf8).randomElement(using: &rng)!, at: index)
                }
                if bytes.isEmpty { break }
            }
            do {
                let canonical = try JSON.parse(bytes).serializedBytes()
                #expect(try JSON.parse(canonical).serializedBytes() == canonical)
            } catch {
                #expect(error.offset >= 0 && error.offset <= bytes.count)
                rejected += 1
            }
        }
        #expect(rejected > 1_000, "mutations must mostly produce invalid documents")
    }

    @Test(arguments: [
        #"{"navigator":"main","transition":3,"frame":1234567,"time":1717171717171717171,"fraction":0.5}"#,
        #"[1,-0.0,1.0,1e-05,1e+20,"\u0000\n\"\\",{"":null}]"#,
        #"{"é😀":["\u001f",true,false,[]]}"#,
    ])
    func canonicalTextIsAFixedPoint(_ text: String) throws {
        #expect(try JSON.parse(text).serialized() == text)
    }
}
