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

    /// PgUp's page is the screen that ends just above the first navigator shown: with taller
    /// navigators (a transition in flight) just above, fewer of them, none passed over.
    @Test func aPageUpEndsWhereTheScreenBegins() throws {
        var model = Self.model((0..<20).map { "n\($0)" })
        for name in ["n10", "n11", "n12"] {
            model.apply(tick: [
                "navigator": .string(name), "transition": 1, "operation": "push", "phase": "animating",
                "frame": 1, "fraction": 0.5, "progress": 0.5, "final": false,
                "views": ["from": ["screen": "s1"], "to": ["screen": "s2"]],
            ])
        }
        let layout = WatchLayout(columns: 80, rows: 12, colour: false)
        let tall = layout.lines(for: "n11", model).count
        try #require(tall > 1, "a navigator with a tick takes more rows")
        let above = layout.countAbove(model, first: 13)
        #expect(above == 9 / tall, "n10 to n12 fill the screen above n13")
        #expect(layout.shownCount(model, from: 13) == 7, "n13 to n19, one row each")
    }

    /// The furthest scroll shows the last navigator at the bottom of a full page: from there the rest
    /// fit whole, from one before they do not (none fitting, the last navigator alone).
    @Test(arguments: [(0, [String]()), (3, []), (20, []), (20, ["n18", "n19"]), (20, ["n5"]), (1, ["n0"])])
    func theFurthestScrollEndsAFullPage(count: Int, animating: [String]) throws {
        var model = Self.model((0..<count).map { "n\($0)" })
        for name in animating {
            model.apply(tick: [
                "navigator": .string(name), "transition": 1, "operation": "push", "phase": "animating",
                "frame": 1, "fraction": 0.5, "progress": 0.5, "final": false,
                "views": ["from": ["screen": "s1"], "to": ["screen": "s2"]],
            ])
        }
        let layout = WatchLayout(columns: 80, rows: count == 1 ? 4 : 12, colour: false)
        let furthest = layout.maxScroll(model)
        guard count > 0 else { return #expect(furthest == 0) }
        #expect(layout.shownCount(model, from: furthest) == count - furthest, "the rest fit from \(furthest)")
        if furthest > 0 {
            #expect(layout.shownCount(model, from: furthest - 1) < count - furthest + 1, "a page ends above")
        }
    }

    /// The names a filter keeps follow the filter and the names that come, however often asked.
    @Test func aFilterKeepsTheNamesThatMatchAsTheyCome() {
        var model = Self.model(["nav1", "nav12", "other"])
        var layout = WatchLayout(columns: 80, rows: 24, colour: false)
        layout.filter = "NAV1"
        #expect(layout.names(model) == ["nav1", "nav12"] && layout.names(model) == ["nav1", "nav12"])
        model.fold(Self.created("xnav10", seq: 9))
        #expect(layout.names(model) == ["nav1", "nav12", "xnav10"])
        layout.filter = "other"
        #expect(layout.names(model) == ["other"])
        layout.filter = ""
        #expect(layout.names(model).count == 4)
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
