import Glibc
import Testing

@testable import SegueDaemon

/// Talks to a real datagram socket through libsystemd's `sd_notify`. The suite sets `NOTIFY_SOCKET`
/// and `WATCHDOG_USEC` in this process's environment, so it runs serialized and restores them; no other
/// test reads them.
@Suite(.serialized) struct SystemdNotifierTests {
    /// Runs `body` with the variables set, then unsets them.
    private func withEnvironment(_ variables: [String: String], _ body: () throws -> Void) rethrows {
        for (name, value) in variables { setenv(name, value, 1) }
        defer { for name in variables.keys { unsetenv(name) } }
        try body()
    }

    @Test func notificationsArriveAsExactDatagrams() throws {
        let listener = try NotifySocketListener()
        let notifier = SystemdNotifier()
        try withEnvironment(["NOTIFY_SOCKET": listener.path]) { () throws in
            #expect(notifier.isSupervised)
            #expect(notifier.ready(status: "serving 3 navigators") == .sent)
            #expect(try listener.receive() == "READY=1\nSTATUS=serving 3 navigators")
            #expect(notifier.ready() == .sent)
            #expect(try listener.receive() == "READY=1")
            #expect(notifier.status("line one\nline two") == .sent)
            #expect(try listener.receive() == "STATUS=line one line two")
            #expect(notifier.watchdog() == .sent)
            #expect(try listener.receive() == "WATCHDOG=1")
            #expect(notifier.stopping(status: "draining") == .sent)
            #expect(try listener.receive() == "STOPPING=1\nSTATUS=draining")
            #expect(notifier.stopping() == .sent)
            #expect(try listener.receive() == "STOPPING=1")
        }
    }

    @Test func reloadingCarriesTheMonotonicClock() throws {
        let listener = try NotifySocketListener()
        try withEnvironment(["NOTIFY_SOCKET": listener.path]) { () throws in
            var before = timespec()
            clock_gettime(CLOCK_MONOTONIC, &before)
            #expect(SystemdNotifier().reloading(status: "reloading config") == .sent)
            var after = timespec()
            clock_gettime(CLOCK_MONOTONIC, &after)
            let lines = try #require(try listener.receive()).split(separator: "\n").map(String.init)
            #expect(lines.count == 3)
            #expect(lines.first == "RELOADING=1")
            #expect(lines.last == "STATUS=reloading config")
            let usec = try #require(lines[1].split(separator: "=").last.flatMap { UInt64($0) })
            #expect(lines[1].hasPrefix("MONOTONIC_USEC="))
            #expect(usec >= UInt64(before.tv_sec) * 1_000_000 + UInt64(before.tv_nsec) / 1000)
            #expect(usec <= UInt64(after.tv_sec) * 1_000_000 + UInt64(after.tv_nsec) / 1000)
        }
    }

    @Test func withoutNotifySocketNothingIsSent() {
        unsetenv("NOTIFY_SOCKET")
        let notifier = SystemdNotifier()
        #expect(!notifier.isSupervised)
        #expect(notifier.ready() == .notSupervised)
        #expect(notifier.watchdog() == .notSupervised)
    }

    @Test func aMissingSocketIsReportedWithErrno() throws {
        try withEnvironment(["NOTIFY_SOCKET": "/nonexistent/notify.sock"]) { () throws in
            #expect(SystemdNotifier().ready() == .failed(errno: ENOENT))
        }
    }

    @Test func watchdogIntervalIsHalfOfWatchdogUsec() throws {
        try withEnvironment(["WATCHDOG_USEC": "10000000"]) { () throws in
            #expect(SystemdNotifier().watchdogInterval == .seconds(5))
        }
        try withEnvironment(["WATCHDOG_USEC": "3000000", "WATCHDOG_PID": "\(getpid())"]) { () throws in
            #expect(SystemdNotifier().watchdogInterval == .milliseconds(1500))
        }
        // The watchdog belongs to another process (we were forked from the supervised one).
        try withEnvironment(["WATCHDOG_USEC": "3000000", "WATCHDOG_PID": "\(getpid() + 1)"]) { () throws in
            #expect(SystemdNotifier().watchdogInterval == nil)
        }
        unsetenv("WATCHDOG_USEC")
        #expect(SystemdNotifier().watchdogInterval == nil)
    }
}
