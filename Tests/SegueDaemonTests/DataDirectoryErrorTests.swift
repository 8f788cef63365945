import Foundation
import Testing

@testable import SegueDaemon

/// A data dir that cannot be used stops the engine with a sentence an operator can act on, not
/// Foundation's `Error Domain=NSCocoaErrorDomain Code=516 …`.
@Suite struct DataDirectoryErrorTests {
    @Test func aFileWhereTheDataDirShouldBe() throws {
        let file = NSTemporaryDirectory() + "segue-not-a-dir-\(UUID().uuidString)"
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let options = EngineOptions(
            dataDirectory: file, commandEndpoints: ["tcp://127.0.0.1:0"], publishEndpoints: ["tcp://127.0.0.1:0"])
        let error = #expect(throws: DataDirectoryError.self) { try Engine(options: options) }
        #expect(error?.description == "\(file) is a file, not a directory; give --data-dir (dataDir) a directory.")
    }

    @Test func aFileOnTheWayToTheDataDir() throws {
        let file = NSTemporaryDirectory() + "segue-not-a-dir-\(UUID().uuidString)"
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let options = EngineOptions(
            dataDirectory: file + "/data/", commandEndpoints: ["tcp://127.0.0.1:0"],
            publishEndpoints: ["tcp://127.0.0.1:0"])
        let error = #expect(throws: DataDirectoryError.self) { try Engine(options: options) }
        #expect(
            error?.description
                == "The data directory \(file)/data/ cannot be created: \(file) is a file, not a directory.")
    }
}
