import SegueCore
import Testing

/// Counts in messages agree with their nouns: "1 event", never "1 events".
@Suite struct CountedTests {
    @Test(arguments: [(0, "0 events"), (1, "1 event"), (2, "2 events"), (-1, "-1 events"), (1000, "1000 events")])
    func aCountTakesItsNounsNumber(_ count: Int, _ text: String) {
        #expect(count.counted("event") == text)
    }

    @Test func anyIntegerType() {
        #expect(Int64(1).counted("frame") == "1 frame")
        #expect(UInt8(3).counted("more problem") == "3 more problems")
    }
}
