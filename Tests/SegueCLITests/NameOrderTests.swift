import Testing

@testable import segue

/// Names as a person numbers them, and a log's names in a refusal: the first ten, then a count.
@Suite struct NameOrderTests {
    @Test func namesAreNumberedAsAPersonNumbersThem() {
        #expect(["nav10", "nav2", "main", "nav1"].sortedAsNumbered() == ["main", "nav1", "nav2", "nav10"])
        // The same number written two ways: a fixed order, whatever order they came in.
        #expect(["nav1", "nav01"].sortedAsNumbered() == ["nav01", "nav1"])
        #expect(["nav01", "nav1"].sortedAsNumbered() == ["nav01", "nav1"])
    }

    static let refusals: [(names: Set<String>, message: String)] = [
        ([], "log.jsonl has no navigator nope (it holds no events)."),
        (["b", "a"], "log.jsonl has no navigator nope; it has a, b."),
        (
            Set((1...42).map { "nav\($0)" }),
            "log.jsonl has no navigator nope; it has 42 navigators: nav1, nav2, nav3, nav4, nav5, nav6, nav7, nav8, "
                + "nav9, nav10 and 32 more."
        ),
    ]

    @Test(arguments: refusals)
    func aRefusalListsTheFirstNamesAndCountsTheRest(names: Set<String>, message: String) {
        #expect(LogSource.unknownNavigator("nope", names: names, "log.jsonl").description == message)
    }
}
