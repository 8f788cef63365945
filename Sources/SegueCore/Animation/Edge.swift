/// The side of the container a style's moving view enters from (or, for reverse operations, leaves by).
public enum Edge: String, Sendable, CaseIterable, Codable {
    case right, left, top, bottom

    /// The unit offset of a view that sits just beyond this edge, in container fractions (y grows down).
    var direction: (x: Double, y: Double) {
        switch self {
        case .right: (1, 0)
        case .left: (-1, 0)
        case .top: (0, -1)
        case .bottom: (0, 1)
        }
    }
}
