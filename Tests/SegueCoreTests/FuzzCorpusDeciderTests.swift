import Foundation
import SegueCore
import Testing

/// Replays the checked-in corpus of the decide/evolve fuzz target (`Fuzz/corpus/decider`) through
/// the same oracle the fuzzer runs, so every script it found interesting stays a regression test.
@Suite struct FuzzCorpusDeciderTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Fuzz/corpus/decider").standardized

    static var inputs: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    @Test func corpusIsPresent() {
        #expect(Self.inputs.count >= 5, "no corpus at \(Self.directory.path)")
    }

    @Test(arguments: inputs)
    func corpusInputKeepsEveryInvariant(file: String) throws {
        let bytes = try [UInt8](Data(contentsOf: Self.directory.appendingPathComponent(file)))
        #expect(DeciderFuzzCheck.run(bytes) == nil)
    }

    /// The oracle can fail: a state whose revision does not count its log is reported.
    @Test func oracleReportsARevisionGap() {
        var state = Navigator.initialState(name: "main", clock: DeciderFuzzCheck.clock)
        state.revision = 3
        #expect(DeciderFuzzCheck.invariants(state, log: [], frame: 0) == "revision 3 after 0 events")
    }
}
