import Foundation
import Testing

@testable import SegueDaemon

/// Open descriptors against the limit: said once on the way up past 90 %, once on the way back
/// under 80 %, nothing in between; and counted from /proc without a descriptor of its own to spare.
@Suite struct DescriptorWatchTests {
    @Test func crossingsAreSaidOnceEachWay() {
        let watch = DescriptorWatch()
        let looks: [(open: Int, said: LogLevel?)] = [
            (10, nil), (57, nil), (58, .warning), (64, nil), (60, nil), (52, nil), (51, .notice), (20, nil),
            (60, .warning),
        ]
        for look in looks {
            #expect(watch.look(open: look.open, limit: 64)?.level == look.said, "at \(look.open) of 64")
        }
        #expect(watch.look(open: 5, limit: 0) == nil, "no limit to judge by")
    }

    @Test func theWarningSaysWhatToDo() {
        let line = DescriptorWatch().look(open: 64, limit: 64)?.line
        #expect(
            line
                == "Open file descriptors: 64 of the limit of 64 (ulimit -n; LimitNOFILE= in the unit). At the limit, new "
                + "connections wait unanswered (libzmq cannot accept them, and says so to no one): raise the limit, or "
                + "keep fewer connections open.")
    }

    /// One directory stream, read again from its start each time: entries added since are counted
    /// (the daemon's is /proc/self/fd, whose entries change as descriptors open and close).
    @Test func oneStreamCountsTheEntriesThereAreNow() throws {
        let directory = try TemporaryDirectory()
        let stream = try #require(opendir(directory.path))
        defer { closedir(stream) }
        #expect(DescriptorWatch.entries(of: stream) == 0)
        for n in 0..<5 { try directory.write("\(n)", "") }
        #expect(DescriptorWatch.entries(of: stream) == 5)
        try FileManager.default.removeItem(atPath: directory.path + "/0")
        #expect(DescriptorWatch.entries(of: stream) == 4)
        let usage = try #require(DescriptorWatch().usage())
        #expect(usage.open > 0 && usage.limit > 0)
    }
}
