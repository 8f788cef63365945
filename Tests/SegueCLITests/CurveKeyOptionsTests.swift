import Foundation
import SegueCommandLine
import Testing

@testable import SegueClient
@testable import segue

/// `--server-key` and `--client-key`: where they come from, how key files are read, and the exact
/// messages for every way they can be wrong.
@Suite struct CurveKeyOptionsTests {
    /// The test keys of zmq_curve(7), so expectations can name them.
    static let serverPublic = "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7"
    static let clientPublic = "Yne@$w-vo<fVvi]a<NY6T1ed:M$fCG*[IaLV{hID"
    static let clientSecret = "D:)Q[IlAW!ahhC2ac:9*A}h:p?([4%wOTJ%JR%cs"

    /// Key files as `segue keygen` writes them, and broken ones, in a fresh directory.
    final class Fixture: Sendable {
        let dir: String

        init() {
            dir = NSTemporaryDirectory() + "segue-keys-" + UUID().uuidString.prefix(8)
            try! FileManager.default.createDirectory(atPath: dir + "/adir.key", withIntermediateDirectories: true)
            let files: [(String, String, Int)] = [
                ("ops.key", clientSecret + "\n", 0o600), ("ops.pub", clientPublic + "\n", 0o644),
                ("nopub.key", clientSecret, 0o600), ("server.pub", serverPublic + "\r\n", 0o644),
                ("mixed.key", clientSecret + "\n", 0o600), ("mixed.pub", serverPublic + "\n", 0o644),
                ("fortychars1.pub", serverPublic + "\n", 0o644), ("bad.key", "not a key\n", 0o600),
                ("empty.key", "\n", 0o600),
                ("alphabet.key", String(clientSecret.dropLast()) + "~\n", 0o600),
                ("big.key", String(repeating: "x", count: 5000), 0o600),
            ]
            for (name, text, mode) in files {
                let written = FileManager.default.createFile(
                    atPath: dir + "/" + name, contents: Data(text.utf8), attributes: [.posixPermissions: mode])
                precondition(written, "cannot write the key fixture \(name) in \(dir)")
            }
        }

        /// `DIR/name` is a file in the fixture directory (keys contain `@`, `%` and `/`, never `DIR/`).
        func resolve(_ text: String) -> String {
            text.replacingOccurrences(of: "DIR/", with: dir + "/")
        }
    }

    static let fixture = Fixture()

    enum Outcome: Sendable, CustomTestStringConvertible {
        case none
        case keys
        case usage(String)
        /// The file (`DIR/name`) and the rest of the sentence.
        case keyFile(String, String)

        var testDescription: String {
            switch self {
            case .none: "none"
            case .keys: "keys"
            case .usage(let message): message
            case .keyFile(let path, let problem): "\(path) \(problem)"
            }
        }
    }

    static let cases: [(server: String?, client: String?, outcome: Outcome)] = [
        (nil, nil, .none),
        (serverPublic, "DIR/ops", .keys),
        ("DIR/server.pub", "DIR/ops.key", .keys),
        ("DIR/server.pub", "DIR/ops.pub", .keys),
        ("DIR/server.pub", "DIR/nopub", .keys),
        // /tmp/segue-keys-XXXXXXXX/fortychars1.pub is 40 Z85 characters too: a file (even a missing one,
        // named .pub) is not a key.
        ("DIR/fortychars1.pub", "DIR/ops", .keys),
        (
            "DIR/fortychars2.pub", "DIR/ops",
            .keyFile("DIR/fortychars2.pub", "cannot be opened: No such file or directory (errno 2).")
        ),
        (
            "DIR/server.pub", nil,
            .usage(
                "A CURVE server key (--server-key) needs a client key pair too: add --client-key <name> (or set "
                    + "SEGUE_CLIENT_KEY) naming the NAME.key and NAME.pub that 'segue keygen --out NAME' wrote.")
        ),
        (
            nil, "DIR/ops",
            .usage(
                "A CURVE client key (--client-key) needs the daemon's public key too: add --server-key <key|file> "
                    + "(or set SEGUE_SERVER_KEY).")
        ),
        (
            "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf~", "DIR/ops",
            .usage(
                "The value 'rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf~' is invalid for '--server-key': expected the "
                    + "daemon's public key: 40 Z85 characters, or a file holding them (it has characters outside "
                    + "the Z85 alphabet, or groups that overflow 32 bits; no such file either).")
        ),
        // Neither a file nor named like one: a mistyped key, reported as a key, not as a missing file (74).
        (
            "shortkey", "DIR/ops",
            .usage(
                "The value 'shortkey' is invalid for '--server-key': expected the daemon's public key: 40 Z85 "
                    + "characters, or a file holding them (it has 8 characters where a key has 40; no such file "
                    + "either).")
        ),
        (
            "", "DIR/ops",
            .usage(
                "The value '' is invalid for '--server-key': expected the daemon's public key: 40 Z85 characters, "
                    + "or a file holding them.")
        ),
        (
            serverPublic, "",
            .usage(
                "The value '' is invalid for '--client-key': expected the base name of a key pair written by "
                    + "'segue keygen --out NAME'.")
        ),
        (
            "DIR/missing.pub", "DIR/ops",
            .keyFile("DIR/missing.pub", "cannot be opened: No such file or directory (errno 2).")
        ),
        (
            serverPublic, "DIR/missing",
            .keyFile("DIR/missing.key", "cannot be opened: No such file or directory (errno 2).")
        ),
        (
            serverPublic, "DIR/bad",
            .keyFile("DIR/bad.key", "does not hold a CURVE key: it has 9 characters where a key has 40.")
        ),
        (serverPublic, "DIR/empty", .keyFile("DIR/empty.key", "does not hold a CURVE key: it is empty.")),
        (
            serverPublic, "DIR/alphabet",
            .keyFile(
                "DIR/alphabet.key",
                "does not hold a CURVE key: it has characters outside the Z85 alphabet, or groups that overflow 32 bits."
            )
        ),
        (serverPublic, "DIR/big", .keyFile("DIR/big.key", "is 5000 bytes; a key file holds one 40-character Z85 key.")),
        (serverPublic, "DIR/adir", .keyFile("DIR/adir.key", "is not a regular file.")),
        (
            serverPublic, "DIR/mixed",
            .keyFile(
                "DIR/mixed.pub", "is not the public half of DIR/mixed.key; the two files come from different pairs.")
        ),
    ]

    @Test(arguments: cases)
    func credentials(server: String?, client: String?, outcome: Outcome) throws {
        let f = Self.fixture
        let options = CurveKeyOptions(
            server: server.map { .init(f.resolve($0), from: "--server-key") },
            client: client.map { .init(f.resolve($0), from: "--client-key") })
        switch outcome {
        case .none:
            #expect(try options.credentials() == nil)
        case .keys:
            let loaded = try #require(try options.credentials())
            #expect(
                loaded.credentials
                    == CurveCredentials(
                        serverPublicKey: Self.serverPublic, publicKey: Self.clientPublic, secretKey: Self.clientSecret))
            #expect(loaded.secretFile.mode == 0o600)
        case .usage(let message):
            #expect(throws: UsageError(message)) { try options.credentials() }
        case .keyFile(let path, let problem):
            #expect(throws: SegueClientError.keyFile(path: f.resolve(path), problem: f.resolve(problem))) {
                try options.credentials()
            }
        }
    }

    /// Options win over the environment; an empty variable is unset.
    @Test(arguments: [
        (
            ["--server-key", "S", "--client-key", "C"], ["SEGUE_SERVER_KEY": "s", "SEGUE_CLIENT_KEY": "c"],
            CurveKeyOptions(server: .init("S", from: "--server-key"), client: .init("C", from: "--client-key"))
        ),
        (
            [], ["SEGUE_SERVER_KEY": "s", "SEGUE_CLIENT_KEY": "c"],
            CurveKeyOptions(server: .init("s", from: "SEGUE_SERVER_KEY"), client: .init("c", from: "SEGUE_CLIENT_KEY"))
        ),
        (
            ["--client-key=C"], ["SEGUE_SERVER_KEY": "s"],
            CurveKeyOptions(server: .init("s", from: "SEGUE_SERVER_KEY"), client: .init("C", from: "--client-key"))
        ),
        ([], ["SEGUE_SERVER_KEY": "", "SEGUE_CLIENT_KEY": ""], CurveKeyOptions()),
        ([], [:], CurveKeyOptions()),
    ])
    func sources(argv: [String], environment: [String: String], expected: CurveKeyOptions) throws {
        let command = CommandConfiguration(
            name: "ping", abstract: "",
            options: [
                OptionSpec("server-key", value: "key|file", help: "s"),
                OptionSpec("client-key", value: "name", help: "c"),
            ])
        #expect(CurveKeyOptions(parsed: try command.parse(argv), environment: environment) == expected)
    }

    @Test func environmentNamesItselfInMessages() {
        let options = CurveKeyOptions(server: .init(Self.serverPublic, from: "SEGUE_SERVER_KEY"))
        #expect(
            throws: UsageError(
                "A CURVE server key (SEGUE_SERVER_KEY) needs a client key pair too: add --client-key <name> (or set "
                    + "SEGUE_CLIENT_KEY) naming the NAME.key and NAME.pub that 'segue keygen --out NAME' wrote.")
        ) { try options.credentials() }
    }

    @Test(arguments: [
        (UInt32(0o600), nil), (0o400, nil),
        (
            0o640,
            "warning: /k/ops.key is open to group or others (mode 0640); it holds a secret key, which 'segue keygen' "
                + "writes with mode 0600: chmod 600 /k/ops.key"
        ),
        (
            0o604,
            "warning: /k/ops.key is open to group or others (mode 0604); it holds a secret key, which 'segue keygen' "
                + "writes with mode 0600: chmod 600 /k/ops.key"
        ),
    ])
    func modeWarnings(mode: UInt32, warning: String?) {
        let file = CurveKeyFile(path: "/k/ops.key", key: Self.clientSecret, mode: mode)
        #expect(CurveKeyOptions.modeWarning(file) == warning)
    }

    /// A message about a secret key file names the file, never what it holds.
    @Test func messagesNeverQuoteTheSecret() throws {
        let path = Self.fixture.dir + "/long.key"
        #expect(FileManager.default.createFile(atPath: path, contents: Data((Self.clientSecret + "X\n").utf8)))
        #expect(throws: SegueClientError.self) {
            do {
                _ = try CurveKeyFile.read(path)
            } catch {
                #expect(!"\(error)".contains(Self.clientSecret.prefix(8)))
                throw error
            }
        }
    }
}
