import Foundation
import SegueCommandLine
import Testing

@testable import segue

/// The typed options of `timeline` and `view`: what each value reads as, the exact message for a
/// bad one, and the shared options each command is given.
@Suite struct PictureOptionTests {
    static let first = Date(timeIntervalSince1970: 1_748_779_200)  // 2025-06-01T12:00:00Z

    @Test(arguments: [
        ("12", LogWindow.Bound.seq(12)), ("0", .seq(0)), ("+2.5s", .offset(2.5)), ("+300ms", .offset(0.3)),
        ("+0", .offset(0)), ("+0s", .offset(0)), ("+0.0ms", .offset(0)), ("+10m", .offset(600)), ("+1h", .offset(3600)),
        ("2025-06-01T12:00:00Z", .time(1_748_779_200_000_000_000)),
        ("2025-06-01T12:00:00.5Z", .time(1_748_779_200_500_000_000)),
        ("2025-06-01T14:00:00+02:00", .time(1_748_779_200_000_000_000)),
    ])
    func bounds(text: String, bound: LogWindow.Bound) throws {
        #expect(try ParsedArguments.read(text, as: LogWindow.Bound.self, for: "--from") == bound)
    }

    @Test(arguments: ["-1", "+-1s", "+soon", "yesterday", "2025-06-32", "12:00", ""])
    func badBounds(text: String) {
        let expectation =
            "expected a seq (12), a time (2025-06-01T12:00:00.5Z, or local 2025-06-01T14:00) or an offset from the "
            + "log's first event (+2.5s, +10m)"
        #expect(throws: UsageError.invalidValue(text, for: "--to", expectation)) {
            try ParsedArguments.read(text, as: LogWindow.Bound.self, for: "--to")
        }
    }

    @Test(arguments: [("a.svg", PictureFile.Format.svg), ("dir/B.HTML", .html), ("c.htm", .html)])
    func pictureFiles(text: String, format: PictureFile.Format) throws {
        let file = try ParsedArguments.read(text, as: PictureFile.self, for: "--output")
        #expect(file.format == format)
        #expect(file.path == text)
    }

    @Test(arguments: ["a.png", "svg", "a.svg.gz", ""])
    func badPictureFiles(text: String) {
        #expect(
            throws: UsageError.invalidValue(text, for: "--output", "expected a file name ending in .svg or .html")
        ) { try ParsedArguments.read(text, as: PictureFile.self, for: "--output") }
    }

    @Test(arguments: [("1", true), ("600", true), ("100000", true), ("0.5", false), ("100001", false), ("x", false)])
    func scales(text: String, valid: Bool) {
        let read = Result { try ParsedArguments.read(text, as: PixelsPerSecond.self, for: "--scale") }
        #expect((try? read.get())?.value == (valid ? Double(text) : nil))
    }

    @Test(arguments: [("1", 1), ("60", 60), ("1000", 1000), ("0", nil), ("1001", nil), ("+60", nil), ("60.0", nil)])
    func frameRates(text: String, hz: Int?) {
        let read = Result { try ParsedArguments.read(text, as: FrameRate.self, for: "--frame-rate") }
        #expect((try? read.get())?.hz == hz)
        if hz == nil {
            #expect(
                throws: UsageError.invalidValue(
                    text, for: "--frame-rate", "expected a whole number of Hz from 1 to 1000")
            ) { try ParsedArguments.read(text, as: FrameRate.self, for: "--frame-rate") }
        }
    }

    /// `timeline` reaches no daemon and prints no JSON: no shared option; `view` reaches one: all but `--json`.
    @Test(arguments: [
        ("timeline", [String]()),
        ("view", ["endpoint", "publish-endpoint", "timeout", "server-key", "client-key"]),
    ])
    func sharedOptions(command: String, shared: [String]) throws {
        let config = try #require(CommandTree.root.subcommand(named: command))
        let globals = Set(CommandTree.global.map(\.name))
        #expect(config.options.map(\.name).filter(globals.contains) == shared)
        #expect(throws: UsageError.unknownOption("--json")) { try config.parse(["--json"]) }
    }
}
