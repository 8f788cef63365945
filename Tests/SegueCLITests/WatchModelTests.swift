import SegueCore
import Testing

@testable import segue

/// `watch`'s model and paging: the names kept in order as they come, and a page that passes over
/// no navigator.
@Suite struct WatchModelTests {
    static func created(_ name: String, seq: Int64) -> EventRecord {
        EventRecord(
            seq: seq, navigator: name, revision: 1, type: "navigator.created", frame: seq, time: seq, command: nil,
            data: ["root": ["name": "Home", "id": "s1"]])
    }

    static func model(_ names: [String], awaited: Set<String> = []) -> WatchModel {
        var model = WatchModel(awaited: awaited)
        for (index, name) in names.enumerated() { model.fold(created(name, seq: Int64(index + 1))) }
        return model
    }

    /// In any order, with names awaited (from the command line) among them or not: as sorted.
    @Test(
        arguments: [
            (["nav10", "nav2", "a", "nav1", "nav2"], []),
            (["b", "c"], ["a", "c", "z"]),
            ((0..<300).map { "n\(($0 * 7919) % 300)" }, ["n5", "zz"]),
        ] as [([String], Set<String>)])
    func namesStayInOrder(names: [String], awaited: Set<String>) {
        let model = Self.model(names, awaited: awaited)
        #expect(model.orderedNames == Set(names).union(awaited).sortedAsNumbered())
    }

    @Test func namesAwaitedLaterAreSortedIn() {
        var model = Self.model(["b", "d"])
        model.awaited = ["c", "a"]
        #expect(model.orderedNames == ["a", "b", "c", "d"])
        model.fold(Self.created("c", seq: 3))
        #expect(model.orderedNames == ["a", "b", "c", "d"] && model.awaited == ["a"])
    }

    /// PgDn moves by the navigators on the screen (three rows each while a transition is in flight,
    /// one otherwise), so the next page starts with the first one not shown.
    @Test(arguments: [24, 40, 13])
    func aPageIsWhatTheScreenShows(rows: Int) {
        let model = Self.model((1...100).map { "nav\($0)" })
        var layout = WatchLayout(columns: 80, rows: rows, colour: false)
        let page = layout.shownCount(model, from: 0)
        #expect(page == rows - 3, "one row each, three rows of header, keys and 'more'")
        let first = layout.render(model, header: "h", keys: "k")
        layout.scroll = page
        let second = layout.render(model, header: "h", keys: "k")
        #expect(first.dropFirst(2).first?.hasPrefix("nav1 ") == true, "\(first)")
        #expect(second.dropFirst(2).first?.hasPrefix("nav\(page + 1) ") == true, "\(second)")
    }

    /// A place scrolled to is kept while the list fits the screen for a moment, and shown again
    /// once it has room to scroll.
    @Test func aScrolledPlaceOutlastsAListThatFits() {
        var layout = WatchLayout(columns: 80, rows: 10, colour: false)
        layout.scroll = 5
        let few = Self.model((1...3).map { "nav\($0)" })
        #expect(layout.render(few, header: "h", keys: "k").dropFirst(2).first?.hasPrefix("nav1 ") == true)
        let many = Self.model((1...20).map { "nav\($0)" })
        #expect(layout.render(many, header: "h", keys: "k").dropFirst(2).first?.hasPrefix("nav6 ") == true)
    }
}
