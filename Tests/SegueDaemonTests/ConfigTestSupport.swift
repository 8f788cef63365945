import Foundation
import SegueCore

@testable import SegueDaemon

/// The package's root directory, for tests of the files it ships (config/, scripts/).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

/// A fresh directory under the system temp dir, removed when the test is done with it.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "segue-ops-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Writes `text` to `name` inside the directory and returns its path.
    @discardableResult
    func write(_ name: String, _ text: String, mode: Int = 0o600) throws -> String {
        let file = path + "/" + name
        try text.write(toFile: file, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file)
        return file
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Valid Z85 keys (from `zmq_curve_keypair`), for config tests.
enum TestKeys {
    static let serverSecret = "JTKVSB%%)wK0E.X)V>+}o?pNmC{O&4W4b!Ni{Lh6"
    static let clientPublic = "Yne@$w-vo<fVvi]a<NY6T1ed:M$fCG*[IaLV{hID"
    static let otherPublic = "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7"
}

/// Parses a config document given as JSON text.
func config(_ text: String) throws(ConfigError) -> DaemonConfig {
    let json: JSON
    do { json = try JSON.parse(text) } catch { fatalError("test JSON does not parse: \(error)") }
    return try DaemonConfig(json: json)
}

/// The error a config document fails with, or nil.
func configError(_ text: String) -> ConfigError? {
    do {
        _ = try config(text)
        return nil
    } catch {
        return error
    }
}
