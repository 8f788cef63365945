/// The timing a `finish` or `cancel` runs its completion with, as UIKit's
/// `continueAnimation(withTimingParameters:durationFactor:)` takes it: a curve or a spring, and a
/// factor on the duration the completion would otherwise take.
///
/// A spring starts with the gesture's velocity, scaled to the distance left, as
/// `UISpringTimingParameters(initialVelocity:)` takes it; a curve keeps UIKit's
/// completionSpeed/completionCurve behaviour, `durationFactor` standing for `1 / completionSpeed`.
public struct CompletionAnimator: Equatable, Sendable {
    public var curve: TimingCurve
    public var durationFactor: Double

    public init(curve: TimingCurve = .easeInOut, durationFactor: Double = 1) {
        self.curve = curve
        self.durationFactor = durationFactor
    }

    /// The largest hand-off velocity, in remaining distances per second: a finger released a hair
    /// from the end would otherwise hand the spring an unbounded one.
    static let maxRelativeVelocity = 100.0

    var json: JSON { ["curve": curve.json, "durationFactor": .double(durationFactor)] }

    /// `{"curve": …, "durationFactor": …}`, both optional, nothing else. Read as every animator is:
    /// `null` inside it is a value of the wrong type, not an absent one.
    package init(json: JSON, path: String) throws(CoreError) {
        let reader = try AnimationJSONReader(json, path: path)
        try reader.allowOnly(["curve", "durationFactor"])
        self.init()
        if let raw = reader.object["curve"] { curve = try TimingCurve(json: raw, path: "\(path).curve") }
        durationFactor = try reader.number("durationFactor", in: 0.001...1000) ?? 1
    }

    /// The completion segment's speed and curve for a fraction moving from `fraction` to `target` at
    /// `velocity` (fraction/s, + toward completion) when released.
    func completion(from fraction: Double, to target: Double, velocity: Double) -> (speed: Double, curve: TimingCurve) {
        let distance = abs(target - fraction)
        let toward = target >= fraction ? velocity : -velocity
        let limit = Self.maxRelativeVelocity
        let relative = distance > 0 ? min(limit, max(-limit, toward / distance)) : 0
        guard case .spring(let spring) = curve else { return (1 / durationFactor, curve) }
        // Nothing left to move (a finish at 1, a cancel at 0): a spring that settles in its own time
        // would hold the end for all of it. It ends at once, as the default completion would.
        if distance == 0, spring.settlingDuration != nil { return (1 / durationFactor, .easeInOut) }
        return (1 / durationFactor, .spring(spring.released(at: relative)))
    }
}

extension TimingCurve {
    /// Springs run in seconds: a completion segment keeps its length in seconds for them alone.
    var isSpring: Bool { if case .spring = self { true } else { false } }
}
