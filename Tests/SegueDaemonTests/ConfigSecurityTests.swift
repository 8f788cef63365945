import SegueCore
import SegueWire
import Testing

@testable import SegueDaemon

@Suite struct ConfigSecurityTests {
    @Test func curveKeysAreReadFromFilesAndInline() throws {
        let directory = try TemporaryDirectory()
        let secretFile = try directory.write("server.key", TestKeys.serverSecret + "\r\n")
        let clientFile = try directory.write("observer.pub", TestKeys.otherPublic + "\n")
        let parsed = try config(
            """
            {"security": {"curve": {"serverSecretKeyFile": "\(secretFile)", "clients": [
                {"publicKey": "\(TestKeys.clientPublic)", "role": "controller"},
                {"publicKeyFile": "\(clientFile)", "role": "observer"}]}}}
            """)
        let security = try #require(parsed.security)
        #expect(security.curve.serverSecretKeyFile == secretFile)
        #expect(security.curve.serverSecretKey.z85 == TestKeys.serverSecret)
        #expect(security.curve.clients.map(\.role) == [.controller, .observer])
        #expect(security.curve.clients.map(\.source) == [.inline, .file(clientFile)])
        #expect(security.role(of: try CurveKey(z85: TestKeys.clientPublic).bytes) == .controller)
        #expect(security.role(of: try CurveKey(z85: TestKeys.otherPublic).bytes) == .observer)
        #expect(security.role(of: [UInt8](repeating: 0, count: 32)) == nil)
        #expect(!"\(security.curve.serverSecretKey)".contains(TestKeys.serverSecret))
    }

    /// The Z85 test vector of rfc.zeromq.org/spec/32 ("HelloWorld" is 8 bytes: 0x86 0x4F 0xD2 0x6F 0xB5
    /// 0x59 0xF7 0x5B), repeated to the 32 bytes of a key.
    @Test func z85DecodesTheSpecVector() throws {
        let key = try CurveKey(z85: String(repeating: "HelloWorld", count: 4))
        #expect(
            key.bytes == Array(repeating: [0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B], count: 4).flatMap { $0 })
    }

    static let badKeys: [(String, String)] = [
        ("short", "a CURVE key of 40 Z85 characters, not 5"),
        (String(repeating: "a", count: 39) + "~", "a CURVE key of 40 Z85 characters; '~' is not one"),
        (String(repeating: "#", count: 40), "a valid Z85 CURVE key; characters 1 to 5 overflow"),
    ]

    @Test(arguments: badKeys)
    func malformedKeysAreRejected(text: String, reason: String) {
        #expect(throws: CurveKeyError(reason)) { try CurveKey(z85: text) }
    }

    @Test func invalidSecuritySectionsNameThePath() throws {
        let directory = try TemporaryDirectory()
        let secret = try directory.write("server.key", TestKeys.serverSecret)
        let badSecret = try directory.write("bad.key", "not a key\n")
        func curve(_ clients: String, secretFile: String = secret) -> String {
            #"{"security": {"curve": {"serverSecretKeyFile": "\#(secretFile)", "clients": \#(clients)}}}"#
        }
        let controller = #"{"publicKey": "\#(TestKeys.clientPublic)", "role": "controller"}"#
        let cases: [(String, String)] = [
            (
                curve("[]"),
                "config error at $.security.curve.clients: must list at least one client; without one nobody can connect"
            ),
            (
                curve("[\(controller)]", secretFile: badSecret),
                "config error at $.security.curve.serverSecretKeyFile: \(badSecret) must hold a CURVE key of 40 Z85 characters, not 9"
            ),
            (
                curve(#"[{"role": "controller"}]"#),
                "config error at $.security.curve.clients[0]: needs publicKey or publicKeyFile"
            ),
            (
                curve(#"[{"publicKey": "\#(TestKeys.clientPublic)"}]"#),
                #"config error at $.security.curve.clients[0].role: is required: "controller" or "observer""#
            ),
            (
                curve(#"[{"publicKey": "\#(TestKeys.clientPublic)", "role": "admin"}]"#),
                #"config error at $.security.curve.clients[0].role: must be "controller" or "observer"; got "admin""#
            ),
            (
                curve(#"[{"publicKey": "abc", "role": "observer"}]"#),
                "config error at $.security.curve.clients[0].publicKey: must be a CURVE key of 40 Z85 characters, not 3"
            ),
            (
                curve(#"[{"publicKey": "\#(TestKeys.clientPublic)", "publicKeyFile": "/x", "role": "observer"}]"#),
                "config error at $.security.curve.clients[0]: has both publicKey and publicKeyFile; keep one"
            ),
            (
                curve("[\(controller), \(controller)]"),
                "config error at $.security.curve.clients[1]: lists a public key already listed; give each client one entry"
            ),
            (
                curve(#"[{"publicKey": "\#(TestKeys.clientPublic)", "role": "observer", "name": "x"}]"#),
                "config error at $.security.curve.clients[0].name: unknown key; expected one of publicKey, publicKeyFile, role"
            ),
        ]
        for (document, message) in cases {
            #expect(configError(document)?.description == message)
        }
    }

    /// `segue keygen` writes NAME.key and NAME.pub; the public one given as the server's secret passes
    /// every check of a key's form, and then fails every client's handshake.
    @Test func aPublicKeyFileGivenAsTheServerSecretIsRefused() throws {
        let directory = try TemporaryDirectory()
        try directory.write("server.key", TestKeys.serverSecret + "\n")
        let serverPublic = try ZMQCurve.publicKey(fromSecret: TestKeys.serverSecret)
        let pair = try directory.write("server.pub", serverPublic + "\n", mode: 0o644)
        let lone = try directory.write("other.pub", serverPublic + "\n", mode: 0o644)
        let unrelated = try directory.write("unrelated.pub", TestKeys.serverSecret + "\n")
        func curve(_ secretFile: String) -> String {
            #"{"security": {"curve": {"serverSecretKeyFile": "\#(secretFile)", "clients": "#
                + #"[{"publicKey": "\#(TestKeys.clientPublic)", "role": "controller"}]}}}"#
        }
        let location = "config error at $.security.curve.serverSecretKeyFile: "
        #expect(
            configError(curve(pair))?.description
                == location + "\(pair) holds the public key of \(directory.path)/server.key; give the secret key "
                + "file, \(directory.path)/server.key")
        for file in [lone, unrelated] {
            #expect(
                configError(curve(file))?.description
                    == location + "\(file) is named as a public key (segue keygen writes NAME.key, the secret, and "
                    + "NAME.pub); give the server's secret key file")
        }
        #expect(configError(curve(directory.path + "/server.key")) == nil)
    }

    /// The other way round: a client's secret key file (`ops.key`) given as its public key file is
    /// refused when the `ops.pub` beside it is its public key; a lone `.key` file may be a public key.
    @Test func aClientsSecretKeyFileGivenAsItsPublicKeyIsRefused() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write("server.key", TestKeys.serverSecret + "\n")
        // Any pair will do: the server's secret stands in for the client's.
        let secret = try directory.write("ops.key", TestKeys.serverSecret + "\n")
        let opsPublic = try ZMQCurve.publicKey(fromSecret: TestKeys.serverSecret)
        _ = try directory.write("ops.pub", opsPublic + "\n", mode: 0o644)
        let named = try directory.write("named.key", TestKeys.clientPublic + "\n", mode: 0o644)
        func curve(_ clientFile: String) -> String {
            #"{"security": {"curve": {"serverSecretKeyFile": "\#(directory.path)/server.key", "clients": "#
                + #"[{"publicKeyFile": "\#(clientFile)", "role": "controller"}]}}}"#
        }
        #expect(
            configError(curve(secret))?.description
                == "config error at $.security.curve.clients[0].publicKeyFile: \(secret) holds the secret key of "
                + "\(directory.path)/ops.pub; give the public key file, \(directory.path)/ops.pub")
        #expect(configError(curve(directory.path + "/ops.pub")) == nil)
        #expect(configError(curve(named)) == nil)
    }

    @Test func nonLoopbackTCPWithoutCurveIsWarnedAbout() throws {
        let open = try config(#"{"command": ["tcp://0.0.0.0:7400"], "publish": ["tcp://127.0.0.1:7401"]}"#)
        #expect(
            open.warnings == [
                "command endpoint tcp://0.0.0.0:7400 accepts connections from other hosts without CURVE; anyone who "
                    + "can reach it can send commands. Bind to 127.0.0.1 or ipc, or configure security.curve."
            ])
        let directory = try TemporaryDirectory()
        let secret = try directory.write("server.key", TestKeys.serverSecret)
        let secured = try config(
            #"{"command": ["tcp://*:7400"], "security": {"curve": {"serverSecretKeyFile": "\#(secret)", "clients": "#
                + #"[{"publicKey": "\#(TestKeys.clientPublic)", "role": "controller"}]}}}"#)
        #expect(secured.warnings.isEmpty)
    }
}
