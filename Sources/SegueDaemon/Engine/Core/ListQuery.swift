import SegueCore
import SegueProtocol

/// `list`, answered beside the loop (`BackgroundReads`): the navigators as of the request, handed over
/// as the fleet holds them (its dictionaries, copied only when the loop next changes one), sorted
/// and encoded there. With 100,000 navigators that took the loop 1.2 s of a debug build, every
/// navigator's frames waiting behind it.
struct ListQuery: Equatable, Sendable {
    var id: String?
    var navigators: [String: NavigatorState]
    /// With several daemons, the other shards' navigators, from the log's fold; this daemon's own
    /// (`navigators`) are newer where both name one.
    var others: [String: NavigatorState] = [:]
    var seq: Int64

    func reply() -> JSON {
        let names = others.isEmpty ? navigators.keys.sorted() : Set(others.keys).union(navigators.keys).sorted()
        return NavigatorSummary.encodeList(id: id, names.map { navigators[$0] ?? others[$0]! }, seq: seq)
    }
}
