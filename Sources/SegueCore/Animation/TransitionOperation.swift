/// What a transition does to the navigator: UIKit's `UINavigationController.Operation` plus modals.
public enum TransitionOperation: String, Sendable, CaseIterable, Codable {
    case push, pop, present, dismiss
}
