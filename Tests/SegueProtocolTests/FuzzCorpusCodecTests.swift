import Foundation
import SegueCore
import SegueProtocol
import Testing

/// Replays the checked-in corpus of the request codec fuzz target (`Fuzz/corpus/codec`) through the
/// same oracle the fuzzer runs, so every input it found interesting stays a regression test.
@Suite struct FuzzCorpusCodecTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Fuzz/corpus/codec").standardized

    static var inputs: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    @Test func corpusIsPresent() {
        #expect(Self.inputs.count >= 5, "no corpus at \(Self.directory.path)")
    }

    @Test(arguments: inputs)
    func corpusInputDecodesSafely(file: String) throws {
        let bytes = try [UInt8](Data(contentsOf: Self.directory.appendingPathComponent(file)))
        #expect(CodecFuzzCheck.run(bytes) == nil)
    }

    /// Hostile shapes the oracle must accept without a trap: deep nesting, huge numbers, lone
    /// surrogates, NUL bytes, a truncated request.
    @Test(arguments: [
        String(repeating: "[", count: 10_000), "{\"cmd\":\"push\",\"navigator\":\"m\",\"screen\":1e999}",
        "{\"cmd\":\"ping\",\"id\":\"\\ud800\"}", "{\"cmd\":\"ping\"\u{0}}",
        "{\"cmd\":\"update\",\"navigator\":\"m\",\"percent\":",
        "{\"cmd\":\"history\",\"limit\":-9223372036854775808}", "{\"id\":9223372036854775807,\"cmd\":7}",
    ])
    func hostileInputDecodesSafely(text: String) {
        #expect(CodecFuzzCheck.run(Array(text.utf8)) == nil)
    }
}
