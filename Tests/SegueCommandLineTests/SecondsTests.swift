import Testing

@testable import SegueCommandLine

/// One reading of a length of time for every option that takes one: `--timeout`, `--since`, and the
/// offsets of `--from` and `--to`.
@Suite struct SecondsTests {
    /// (text, requiring a unit, seconds or nil)
    static let cases: [(String, Bool, Double?)] = [
        ("0.4", false, 0.4), ("0.4s", false, 0.4), ("400ms", false, 0.4), (".5", false, 0.5),
        ("10m", false, 600), ("2h", false, 7200), ("1d", false, 86_400), ("0", false, 0), ("0ms", false, 0),
        ("1e3ms", false, 1), ("10m", true, 600), ("90s", true, 90),
        ("90", true, nil), ("-1s", false, nil), ("inf", false, nil), ("nan", false, nil), ("infs", false, nil),
        ("0x10", false, nil), ("", false, nil), ("s", false, nil), ("ms", false, nil), ("2 m", false, nil),
        ("1y", false, nil), ("10M", false, nil), ("1e400s", false, nil), ("200000d", false, nil), ("9e9", false, 9e9),
    ]

    @Test(arguments: cases)
    func readsALengthOfTime(text: String, requiringUnit: Bool, seconds: Double?) {
        #expect(Seconds.parse(Substring(text), requiringUnit: requiringUnit) == seconds)
    }

    @Test func anOptionTakesOnlyPositiveLengths() throws {
        #expect(try Seconds(argument: "2m").value == 120)
        #expect(throws: ArgumentValueError.self) { try Seconds(argument: "0") }
    }
}
