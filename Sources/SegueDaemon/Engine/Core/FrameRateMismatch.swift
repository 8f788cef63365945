/// A log whose navigators were created at another frame rate than the daemon's.
///
/// Frame numbers count from the epoch at the log's rate: a daemon at another rate would read every
/// stored frame as a different instant (a scheduled completion years away, or long past) and write
/// frames that go backwards. A log keeps the rate it was started with.
struct FrameRateMismatch: Error, CustomStringConvertible {
    /// The rate the log's navigators were created at, one of them, and the daemon's.
    var logRate: Int
    var navigator: String
    var configuredRate: Int

    var description: String {
        "the log numbers its frames at \(logRate) Hz (navigator \"\(navigator)\" was created at that rate), not "
            + "\(configuredRate) Hz: start segued with --frame-rate \(logRate) (or \"frameRate\": \(logRate)); a "
            + "log keeps the rate it was started with, so another rate needs a new log"
    }
}
