/// Frame `F` is the instant `⌊F × 10⁹ / rate⌋` ns since the Unix epoch (docs/design.md, "The frame clock").
///
/// All arithmetic is on integers (128-bit intermediates, since `F × 10⁹` overflows 64 bits for any
/// present-day frame at 60 Hz), so every daemon and host computes the same frame numbers.
public struct FrameClock: Equatable, Sendable {
    /// Frames per second; 1...1000.
    public let rate: Int

    public static let supportedRates: ClosedRange<Int> = 1...1000

    public init(rate: Int) throws(CoreError) {
        guard Self.supportedRates.contains(rate) else {
            throw CoreError(.invalidArgument, "frameRate must be a whole number of Hz from 1 to 1000, not \(rate).")
        }
        self.rate = rate
    }

    /// The instant of frame `frame`, in Unix nanoseconds, floored.
    public func instant(ofFrame frame: Int64) -> Int64 {
        let ns = Int128(frame) * 1_000_000_000
        return Int64(Self.floorDivide(ns, Int128(rate)))
    }

    /// The first frame whose instant is at or after `time`: the frame at which an event accepted at
    /// `time` takes effect.
    ///
    /// `⌊F·10⁹/r⌋ ≥ t` holds exactly when `F·10⁹/r ≥ t` (t is an integer), i.e. `F ≥ ⌈t·r/10⁹⌉`.
    public func frame(atOrAfter time: Int64) -> Int64 {
        let scaled = Int128(time) * Int128(rate)
        return Int64(-Self.floorDivide(-scaled, 1_000_000_000))
    }

    /// The last frame whose instant is at or before `time`: the frame a clock reading falls in.
    public func frame(atOrBefore time: Int64) -> Int64 {
        // ⌊F·10⁹/r⌋ ≤ t  ⇔  F·10⁹/r < t + 1  ⇔  F < (t+1)·r/10⁹.
        let scaled = (Int128(time) + 1) * Int128(rate)
        return Int64(-Self.floorDivide(-scaled, 1_000_000_000)) - 1
    }

    /// A duration in seconds as a (possibly fractional) number of frames.
    public func frames(forSeconds seconds: Double) -> Double { seconds * Double(rate) }

    /// The whole number of frames a segment of `frames` frames occupies: the first frame index at
    /// which its fraction reaches 1. A tiny tolerance absorbs binary noise such as `0.35 × 60`.
    public static func wholeFrames(_ frames: Double) -> Int64 {
        guard frames > 1e-9 else { return 0 }
        let rounded = (frames - 1e-9).rounded(.up)
        return Int64(rounded)
    }

    private static func floorDivide(_ a: Int128, _ b: Int128) -> Int128 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }
}
