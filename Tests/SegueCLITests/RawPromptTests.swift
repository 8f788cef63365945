import SegueCommandLine
import Testing

@testable import segue

/// The prompt's own `history`: the last 50 lines, numbered by their place in the whole history.
@Suite struct RawPromptTests {
    @Test(arguments: [
        (3, "1  line 1", "3  line 3", 3), (50, "1  line 1", "50  line 50", 50), (60, "11  line 11", "60  line 60", 50),
    ])
    func historyListing(count: Int, first: String, last: String, listed: Int) {
        let lines = RawPrompt.listing((1...count).map { "line \($0)" })
        #expect(lines.count == listed)
        #expect(lines.first == first)
        #expect(lines.last == last)
    }

    /// The prompt's status: the most serious failure whatever the order, none when all went well.
    @Test(
        arguments: [
            ([], nil), ([ExitCode.rejected], ExitCode.rejected), ([.rejected, .usage], .usage),
            ([.usage, .rejected], .usage), ([.rejected, .timeout, .usage], .timeout),
            ([.unavailable, .timeout], .unavailable),
        ] as [([ExitCode], ExitCode?)])
    func theWorstFailureDecides(failures: [ExitCode], status: ExitCode?) {
        var noted = PromptFailures()
        for failure in failures { noted.note(failure) }
        #expect(noted.status == status)
    }
}
