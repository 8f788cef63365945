/// One point of a gesture's path: where the fraction was, when.
public struct GestureSample: Equatable, Sendable {
    public var frame: Int64
    /// The client's time of the input, when it gave one (ns, its own clock).
    public var clientTime: Int64?
    public var percent: Double

    public init(frame: Int64, clientTime: Int64?, percent: Double) {
        self.frame = frame
        self.clientTime = clientTime
        self.percent = percent
    }
}

/// The finger's velocity from its recent path, for a release that names none: a least-squares fit
/// over about the last 100 ms, as Android's `VelocityTracker` (its LSQ2 strategy) and UIKit's pan
/// recognizer measure it.
///
/// The fit is a parabola when there are three or more points (a finger speeding up or slowing down
/// keeps its release speed, where a straight line would report the window's average) and a line
/// through two. Times are the clients' own when the newest point has one (over the points that
/// have one), since touches batched by a network or a run loop arrive in fewer frames than they
/// were made in; otherwise frame instants.
enum VelocityEstimator {
    /// How far back the fit looks from the newest point.
    static let horizon = 0.1
    /// How many points a transition keeps: a 100 ms window at 240 Hz touch sampling, and some.
    static let capacity = 32
    /// The fastest velocity, either way, in fractions per second: a request may give no faster one,
    /// and an estimate is held to it (as Android holds a fling to its maximum fling velocity), so
    /// that touches stamped nanoseconds apart do not put a velocity in the log no request could.
    static let limit = 1000.0

    /// `velocity` held to ±`limit`.
    static func bounded(_ velocity: Double) -> Double { min(limit, max(-limit, velocity)) }

    /// Fraction per second at the newest sample, or `nil` with fewer than two distinct times.
    static func estimate(_ samples: [GestureSample], clock: FrameClock) -> Double? {
        guard let newest = samples.last else { return nil }
        var ts: [Double] = []
        var ps: [Double] = []
        for s in samples {
            let t: Double
            if let newestTime = newest.clientTime {
                // A point without a time (a `begin` that gave none) has no place on the client's clock.
                guard let time = s.clientTime else { continue }
                t = Double(time - newestTime) / 1e9
            } else {
                t = Double(s.frame - newest.frame) / Double(clock.rate)
            }
            guard t >= -horizon - 1e-9, t <= 0 else { continue }
            ts.append(t)
            ps.append(s.percent)
        }
        let distinct = Set(ts).count
        guard distinct >= 2 else { return nil }
        if distinct >= 3, let slope = quadraticSlope(ts, ps) { return bounded(slope) }
        return linearSlope(ts, ps).map(bounded)
    }

    /// The slope at t = 0 of the least-squares line through the points.
    static func linearSlope(_ t: [Double], _ p: [Double]) -> Double? {
        let n = Double(t.count)
        let mt = t.reduce(0, +) / n
        let mp = p.reduce(0, +) / n
        var num = 0.0
        var den = 0.0
        for i in t.indices {
            num += (t[i] - mt) * (p[i] - mp)
            den += (t[i] - mt) * (t[i] - mt)
        }
        return den > 0 ? num / den : nil
    }

    /// `b` of the least-squares parabola a + b·t + c·t² (its slope at t = 0), by the normal
    /// equations solved with Cramer's rule; `nil` when they are singular.
    static func quadraticSlope(_ t: [Double], _ p: [Double]) -> Double? {
        var s = [Double](repeating: 0, count: 5)  // Σ t^k, k = 0...4
        var r = [Double](repeating: 0, count: 3)  // Σ p·t^k, k = 0...2
        for i in t.indices {
            var power = 1.0
            for k in 0..<5 {
                s[k] += power
                if k < 3 { r[k] += p[i] * power }
                power *= t[i]
            }
        }
        func det(_ m: [[Double]]) -> Double {
            m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        }
        let a = [[s[0], s[1], s[2]], [s[1], s[2], s[3]], [s[2], s[3], s[4]]]
        let d = det(a)
        // Times are seconds within 0.1 of zero, so the matrix's scale is small: compare relatively.
        guard abs(d) > 1e-12 * max(1, s[0] * s[2] * s[4]) else { return nil }
        let b = [[s[0], r[0], s[2]], [s[1], r[1], s[3]], [s[2], r[2], s[4]]]
        return det(b) / d
    }
}
