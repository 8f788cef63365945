import SegueCore
import Testing

@testable import SegueDaemon

/// `list`'s reply from the navigators handed beside the loop: sorted by name, this daemon's own
/// where the log's fold (the other shards') names one too.
@Suite struct ListQueryTests {
    static func state(_ name: String, revision: Int64) throws -> NavigatorState {
        var state = Navigator.initialState(name: name, clock: try FrameClock(rate: 60))
        state.revision = revision
        return state
    }

    @Test(
        arguments: [
            ([("b", 1), ("a", 2)], [], ["a", "b"], [2, 1]),
            ([("m", 5)], [("m", 3), ("z", 1), ("c", 4)], ["c", "m", "z"], [4, 5, 1]),
            ([], [("y", 1), ("x", 2)], ["x", "y"], [2, 1]),
            ([], [], [], []),
        ] as [([(String, Int64)], [(String, Int64)], [String], [Int64])])
    func namesSortedAndOwnStatesFirst(
        own: [(String, Int64)], others: [(String, Int64)], names: [String], revisions: [Int64]
    ) throws {
        func states(_ pairs: [(String, Int64)]) throws -> [String: NavigatorState] {
            Dictionary(uniqueKeysWithValues: try pairs.map { ($0.0, try Self.state($0.0, revision: $0.1)) })
        }
        let query = ListQuery(id: "l", navigators: try states(own), others: try states(others), seq: 9)
        let reply = query.reply()
        let listed = reply["navigators"]?.arrayValue ?? []
        #expect(listed.compactMap { $0["navigator"]?.stringValue } == names)
        #expect(listed.compactMap { $0["revision"]?.int64Value } == revisions)
        #expect(reply["seq"] == 9 && reply["id"] == "l")
    }
}
