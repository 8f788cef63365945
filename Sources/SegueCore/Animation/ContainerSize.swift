/// A container size in points, so styles given in points (SimpleOver's 55-point offset) can be turned
/// into the container fractions that ticks carry.
public struct ContainerSize: Equatable, Sendable {
    public var width: Double
    public var height: Double
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// Used when a navigator declares no container: an iPhone 14/15's 390 × 844 points, the screen the
    /// seed samples were written for.
    public static let defaultPhone = ContainerSize(width: 390, height: 844)
}
