import SegueCommandLine
import SegueCore

/// The options a gesture step takes beyond its percent and velocity: where the finger is (`--touch`,
/// `--swipe-edge`, `--time`, on `begin`, `update` and `end`) and the completion's animator
/// (`--animator-curve`, `--duration-factor`, on `finish`, `cancel` and `end`).
enum GestureOptions {
    static let geometry: [OptionSpec] = [
        OptionSpec("touch", value: "x,y", help: "The touch point in fractions of the container (0,0 top left)."),
        OptionSpec(
            "swipe-edge", value: "edge", completion: .list(GestureGeometry.SwipeEdge.allCases.map(\.rawValue)),
            help: "The edge the swipe started from: left, right, top, bottom, or none (a button)."),
        OptionSpec("time", value: "ns", help: "The input event's time on this client's clock, in nanoseconds."),
    ]

    static let animator: [OptionSpec] = [
        OptionSpec(
            "animator-curve", value: "curve", completion: .list(TimingCurve.namedCurves.map(\.name)),
            help: "Complete with this curve instead (springs too: they start with the release velocity)."),
        OptionSpec(
            "duration-factor", value: "factor", help: "Scale the completion's duration (default 1; with the curve)."),
    ]

    /// `--touch`, `--swipe-edge` and `--time` as the geometry `begin`, `update` and `end` send.
    static func geometry(_ inv: Invocation) throws(UsageError) -> GestureGeometry {
        var geometry = GestureGeometry()
        if let text = inv.parsed.value("touch") {
            let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            let numbers = parts.compactMap { Double($0.trimmingSpaces) }.filter(\.isFinite)
            guard parts.count == 2, numbers.count == 2 else {
                throw UsageError.invalidValue(
                    text, for: "--touch", "expected x,y in fractions of the container, like 0.02,0.4")
            }
            geometry.touch = GestureGeometry.Touch(x: numbers[0], y: numbers[1])
        }
        if let edge = inv.parsed.value("swipe-edge") {
            let names = GestureGeometry.SwipeEdge.allCases.map(\.rawValue)
            geometry.edge = GestureGeometry.SwipeEdge(
                rawValue: try ArgumentValues.choice(edge, for: "--swipe-edge", in: names))
        }
        geometry.time = try inv.count("time")
        return geometry
    }

    /// `--animator-curve` and `--duration-factor` as a completion animator, nil when neither is given;
    /// refused beside `--completion-speed` or `--completion-curve`, which it replaces.
    static func animator(_ inv: Invocation) throws(UsageError) -> CompletionAnimator? {
        let curve = inv.parsed.value("animator-curve")
        let factor = inv.parsed.value("duration-factor")
        guard curve != nil || factor != nil else { return nil }
        for other in ["completion-speed", "completion-curve"] where inv.parsed.value(other) != nil {
            throw UsageError(
                "--\(other) does not go with --animator-curve or --duration-factor: the animator's curve and factor replace it."
            )
        }
        var json = JSONObject()
        if let curve { json["curve"] = try ArgumentValues.curve(curve, for: "--animator-curve") }
        if let factor { json["durationFactor"] = .double(try ArgumentValues.number(factor, for: "--duration-factor")) }
        do throws(CoreError) {
            return try CompletionAnimator(json: .object(json), path: "animator")
        } catch {
            let option = error.message.hasPrefix("animator.durationFactor") ? "duration-factor" : "animator-curve"
            let message = error.message.hasSuffix(".") ? String(error.message.dropLast()) : error.message
            throw UsageError.invalidValue(inv.parsed.value(option) ?? "", for: "--\(option)", message)
        }
    }
}
