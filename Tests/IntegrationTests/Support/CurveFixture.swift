import Foundation
import SegueCore
import Testing

/// Key pairs made with `segue keygen`, and a segued that admits some of them by CURVE: the set-up
/// the CURVE tests of the CLI and of the relay share.
enum CurveFixture {
    /// A key pair per name in `dir`/keys (`NAME.key`, `NAME.pub`); returns that directory.
    static func keys(_ names: [String], in dir: String) throws -> String {
        let keys = dir + "/keys"
        for name in names {
            let made = try Cli.run(["keygen", "--out", keys + "/" + name])
            try #require(made.status == 0, "\(made.stderr)")
        }
        return keys
    }

    /// A daemon on `dir` with `server` as its key and `clients` (key name, role) admitted. It does
    /// not wait until ready: the harness's readiness probe speaks plaintext.
    static func daemon(in dir: String, keys: String, server: String = "server", clients: [(String, String)])
        throws -> DaemonProcess
    {
        let admitted: [JSON] = clients.map { name, role in
            ["publicKeyFile": .string(keys + "/\(name).pub"), "role": .string(role)]
        }
        let config = try Reliability.writeConfig(
            [
                "security": [
                    "curve": ["serverSecretKeyFile": .string(keys + "/\(server).key"), "clients": .array(admitted)]
                ]
            ], in: dir)
        return try DaemonProcess(dataDir: dir, arguments: ["--config", config], waitReady: false)
    }
}
