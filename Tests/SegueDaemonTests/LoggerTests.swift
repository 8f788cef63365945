import Synchronization
import Testing

@testable import SegueDaemon

/// Collects the lines a `LogHandler` writes, for exact comparison.
final class LogBuffer: Sendable {
    private let storage = Mutex<[String]>([])
    var lines: [String] { storage.withLock { $0 } }
    var handler: LogHandler { LogHandler { line in self.storage.withLock { $0.append(line) } } }
}

@Suite struct LoggerTests {
    static let prefixes: [(LogLevel, String)] = [
        (.trace, "<7>"), (.debug, "<7>"), (.info, "<6>"), (.notice, "<5>"), (.warning, "<4>"), (.error, "<3>"),
        (.critical, "<2>"),
    ]

    @Test(arguments: prefixes)
    func eachLevelHasItsJournaldPriority(level: LogLevel, prefix: String) {
        let buffer = LogBuffer()
        let logger = Logger(label: "segued", threshold: LogThreshold(.trace), handler: buffer.handler)
        logger.log(level: level, "hello")
        #expect(buffer.lines == ["\(prefix)segued: hello\n"])
    }

    @Test func convenienceMethodsAndMetadataWriteExactLines() {
        let buffer = LogBuffer()
        let logger = Logger(
            label: "store", threshold: LogThreshold(.trace), handler: buffer.handler, metadata: ["pid": "42"])
        logger.trace("t")
        logger.debug("d")
        logger.info("opened", metadata: ["path": "/var/lib/segue/segue.db", "events": "12"])
        logger.notice("n")
        logger.warning("slow commit", metadata: ["pid": "override", "ms": "120"])
        logger.error("e", metadata: ["reason": "disk full", "quote": #"say "hi""#, "empty": "", "eq": "a=b"])
        logger.critical("two\nlines\tand\u{1}")
        #expect(
            buffer.lines == [
                "<7>store: t pid=42\n",
                "<7>store: d pid=42\n",
                "<6>store: opened events=12 path=/var/lib/segue/segue.db pid=42\n",
                "<5>store: n pid=42\n",
                "<4>store: slow commit ms=120 pid=override\n",
                #"<3>store: e empty="" eq="a=b" pid=42 quote="say \"hi\"" reason="disk full""# + "\n",
                #"<2>store: two\nlines\tand\u0001 pid=42"# + "\n",
            ])
    }

    @Test func messagesBelowTheThresholdAreNeverBuilt() {
        let buffer = LogBuffer()
        let logger = Logger(label: "segued", threshold: LogThreshold(.warning), handler: buffer.handler)
        let built = Mutex(0)
        func expensive() -> String {
            built.withLock { $0 += 1 }
            return "expensive"
        }
        logger.info(expensive())
        logger.debug(expensive(), metadata: ["k": expensive()])
        logger.warning(expensive())
        #expect(built.withLock { $0 } == 1)
        #expect(buffer.lines == ["<4>segued: expensive\n"])
    }

    @Test func changingTheLevelAppliesToEveryLoggerSharingTheThreshold() {
        let buffer = LogBuffer()
        let root = Logger(label: "segued", threshold: LogThreshold(.info), handler: buffer.handler)
        let engine = root.child(label: "engine", metadata: ["navigator": "main"])
        engine.debug("hidden")
        root.logLevel = .debug  // what a SIGHUP reload does
        engine.debug("shown")
        #expect(engine.logLevel == .debug)
        #expect(buffer.lines == ["<7>engine: shown navigator=main\n"])
    }

    @Test func concurrentLoggingKeepsEveryLineWhole() async {
        let buffer = LogBuffer()
        let logger = Logger(label: "segued", threshold: LogThreshold(.info), handler: buffer.handler)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<100 { logger.info("line", metadata: ["task": "\(task)", "i": "\(index)"]) }
                }
            }
        }
        let lines = buffer.lines
        #expect(lines.count == 800)
        #expect(Set(lines).count == 800)
        #expect(lines.allSatisfy { $0.hasPrefix("<6>segued: line i=") && $0.hasSuffix("\n") })
    }

    @Test func levelsOrderFromTraceToCritical() {
        #expect(LogLevel.allCases.sorted() == LogLevel.allCases)
        #expect(LogLevel.names == ["trace", "debug", "info", "notice", "warning", "error", "critical"])
        #expect(LogThreshold(.notice).admits(.warning))
        #expect(!LogThreshold(.notice).admits(.info))
    }
}
