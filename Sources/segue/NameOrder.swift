import Foundation

extension Sequence<String> {
    /// Navigator names as a person numbers them, nav2 before nav10: how `watch`, `ls` and what a
    /// log holds list them.
    func sortedAsNumbered() -> [String] { sorted { $0.compare($1, options: .numeric) == .orderedAscending } }
}
