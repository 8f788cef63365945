extension TimingCurve {
    /// The first fraction at which the curve reaches `progress` (in [0, 1]): where a linear scrub to
    /// that position stands in time. Curves that overshoot reach it early; every curve reaches 1 at 1.
    func fraction(reaching progress: Double, duration: Double) -> Double {
        if case .linear = self { return progress }
        if !(progress > 0) { return 0 }
        // A scan finds the first interval that crosses; bisection then narrows it to a few ulps.
        let steps = 256
        var low = 0.0
        for step in 1...steps {
            let high = Double(step) / Double(steps)
            if self.progress(atFraction: high, duration: duration) >= progress {
                var (below, above) = (low, high)
                for _ in 0..<64 {
                    let middle = (below + above) / 2
                    if middle <= below || middle >= above { break }
                    if self.progress(atFraction: middle, duration: duration) >= progress {
                        above = middle
                    } else {
                        below = middle
                    }
                }
                // A curve that eases into its end reaches 1, within rounding, a few ulps of time
                // before it: standing there, the views would show the end and a resume would take one
                // more frame to finish, where UIKit's `fractionComplete = 1` stands at the end.
                return 1 - above < 1e-6 ? 1 : above
            }
            low = high
        }
        return 1
    }
}
