import Foundation

/// Navigator names as a person numbers them, nav2 before nav10: how `watch`, `ls` and what a log
/// holds list them. Names the numeric compare finds the same (`nav01`, `nav1`) keep a fixed order.
enum NameOrder {
    static func ascending(_ a: String, _ b: String) -> Bool {
        switch a.compare(b, options: .numeric) {
        case .orderedAscending: true
        case .orderedDescending: false
        case .orderedSame: a < b
        }
    }
}

extension Sequence<String> {
    func sortedAsNumbered() -> [String] { sorted(by: NameOrder.ascending) }
}
