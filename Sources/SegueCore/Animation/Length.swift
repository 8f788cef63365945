/// An offset or keyframe value: a plain number (a container fraction for x and y, the property's own unit
/// otherwise), or points, which only make sense for x and y and are divided by the container's width or
/// height when views are computed.
///
/// JSON: a number, or `{"points": 55}`.
public enum Length: Equatable, Sendable {
    case fraction(Double)
    case points(Double)

    public static let zero = Length.fraction(0)

    /// The value in container fractions along an axis `extent` points long.
    public func resolved(along extent: Double) -> Double {
        switch self {
        case .fraction(let value): value
        case .points(let points): extent > 0 ? points / extent : 0
        }
    }

    var isZero: Bool {
        switch self {
        case .fraction(let value), .points(let value): value == 0
        }
    }
}
