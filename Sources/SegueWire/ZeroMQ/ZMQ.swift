import CZeroMQ

/// Library-wide facts about libzmq and the two helpers every call in SegueWire goes through.
package enum ZMQ {
    /// The libzmq version linked at run time (not the header's), e.g. 4.3.4 on Debian 12.
    package static var version: Version {
        var major: Int32 = 0
        var minor: Int32 = 0
        var patch: Int32 = 0
        zmq_version(&major, &minor, &patch)
        return Version(major: Int(major), minor: Int(minor), patch: Int(patch))
    }

    /// Whether libzmq was built with a capability: `"curve"`, `"ipc"`, `"draft"`, ... (`zmq_has`).
    package static func has(_ capability: String) -> Bool {
        zmq_has(capability) == 1
    }

    /// A libzmq version triple, ordered so that `ZMQ.version >= Version(major: 4, minor: 3, patch: 0)` reads.
    package struct Version: Comparable, Hashable, Sendable, CustomStringConvertible {
        package let major: Int
        package let minor: Int
        package let patch: Int

        package init(major: Int, minor: Int, patch: Int) {
            self.major = major
            self.minor = minor
            self.patch = patch
        }

        package static func < (lhs: Version, rhs: Version) -> Bool {
            (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
        }

        package var description: String { "\(major).\(minor).\(patch)" }
    }

    /// Runs a libzmq call that reports failure as `-1` + `errno`: the one place that retries `EINTR`.
    ///
    /// libzmq's manual lists `EINTR` for every blocking call ("The operation was interrupted by delivery of
    /// a signal"); the call is safe to repeat, so repeating it here means no caller ever sees it (SwiftNIO's
    /// `syscall` wrapper does the same for POSIX). `EAGAIN` comes back as `nil` so that callers can turn it
    /// into a value; every other failure is thrown with its `errno`.
    ///
    /// - Returns: the call's non-negative result, or `nil` for `EAGAIN`.
    static func call(_ name: String, _ body: () -> Int32) throws(ZMQError) -> Int32? {
        while true {
            let result = body()
            if result != -1 { return result }
            let error = ZMQError.last(name)
            switch error.code {
            case .interrupted: continue
            case .wouldBlock: return nil
            default: throw error
            }
        }
    }

    /// Like ``call(_:_:)`` for calls where `EAGAIN` is not an ordinary outcome: it is thrown too.
    @discardableResult
    static func check(_ name: String, _ body: () -> Int32) throws(ZMQError) -> Int32 {
        guard let result = try call(name, body) else { throw ZMQError(code: .wouldBlock, call: name) }
        return result
    }

    /// The one conversion of a timeout to libzmq's milliseconds, where `-1` means "wait forever".
    ///
    /// `nil` is forever. A positive duration shorter than a millisecond rounds up to 1 ms rather than down
    /// to 0, because 0 means "do not wait at all" to libzmq, the opposite of what was asked. Negative
    /// durations mean 0, and anything past `Int32.max` ms (24.8 days) saturates.
    static func milliseconds(_ duration: Duration?) -> Int32 {
        guard let duration else { return -1 }
        let (seconds, attoseconds) = duration.components
        if seconds < 0 || (seconds == 0 && attoseconds <= 0) { return 0 }
        let perMillisecond: Int64 = 1_000_000_000_000_000
        let (fraction, remainder) = attoseconds.quotientAndRemainder(dividingBy: perMillisecond)
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return Int32.max }
        let total = scaled + fraction + (remainder > 0 ? 1 : 0)
        return Int32(clamping: total)
    }

    /// Whole seconds for the TCP keepalive options, which libzmq takes in seconds; rounds up, at least 1.
    static func seconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        return Int32(clamping: max(1, seconds + (attoseconds > 0 ? 1 : 0)))
    }
}
