import Glibc
import SegueClient
import SegueCommandLine

/// `--server-key` and `--client-key` (or `SEGUE_SERVER_KEY` and `SEGUE_CLIENT_KEY`): the CURVE keys a
/// command needs to reach a daemon that runs with `security.curve` (docs/operations.md).
///
/// The server key is the daemon's public key, as 40 Z85 characters or a file holding them (the
/// `NAME.pub` that `segue keygen` wrote for the server); the client key names a pair written by
/// `segue keygen --out NAME`, whose public half the daemon lists in `security.curve.clients`. Options
/// win over the environment, as `--endpoint` does over `SEGUE_ENDPOINT`, and an empty variable counts
/// as unset so that `SEGUE_SERVER_KEY= segue ping` turns CURVE off for one command.
struct CurveKeyOptions: Equatable, Sendable {
    static let serverKeyVariable = "SEGUE_SERVER_KEY"
    static let clientKeyVariable = "SEGUE_CLIENT_KEY"

    /// A value and where it came from (`--server-key` or `SEGUE_SERVER_KEY`), for messages.
    struct Given: Equatable, Sendable {
        var value: String
        var source: String

        init(_ value: String, from source: String) {
            self.value = value
            self.source = source
        }
    }

    /// The daemon's public key: 40 Z85 characters or a file holding them.
    var server: Given?
    /// The base name of this client's key pair (`NAME.key`, `NAME.pub`).
    var client: Given?

    init(server: Given? = nil, client: Given? = nil) {
        self.server = server
        self.client = client
    }

    init(parsed: ParsedArguments, environment: [String: String]) {
        func given(_ option: String, _ variable: String) -> Given? {
            if let value = parsed.value(option) { return Given(value, from: "--\(option)") }
            if let value = environment[variable], !value.isEmpty { return Given(value, from: variable) }
            return nil
        }
        server = given("server-key", Self.serverKeyVariable)
        client = given("client-key", Self.clientKeyVariable)
    }

    /// Whether either key was given: the command means to use CURVE.
    var isEmpty: Bool { server == nil && client == nil }

    /// The credentials, or `nil` when neither key was given.
    ///
    /// - Throws: `UsageError` for one key without the other or a value that cannot be a key;
    ///   `SegueClientError.keyFile` for a key file that is missing, unreadable or malformed.
    /// - Returns: also the secret key file, whose mode the caller may warn about.
    func credentials() throws -> (credentials: CurveCredentials, secretFile: CurveKeyFile)? {
        switch (server, client) {
        case (nil, nil):
            return nil
        case (let server?, nil):
            throw UsageError(
                "A CURVE server key (\(server.source)) needs a client key pair too: add --client-key <name> (or set "
                    + "\(Self.clientKeyVariable)) naming the NAME.key and NAME.pub that 'segue keygen --out NAME' wrote."
            )
        case (nil, let client?):
            throw UsageError(
                "A CURVE client key (\(client.source)) needs the daemon's public key too: add --server-key <key|file> "
                    + "(or set \(Self.serverKeyVariable)).")
        case (let server?, let client?):
            if client.value.isEmpty {
                throw UsageError.invalidValue(
                    "", for: client.source, "expected the base name of a key pair written by 'segue keygen --out NAME'")
            }
            let serverKey = try Self.publicKey(server, of: "the daemon's")
            let (credentials, secretFile) = try CurveCredentials.keyPair(
                named: client.value, serverPublicKey: serverKey)
            return (credentials, secretFile)
        }
    }

    /// A public key (the daemon's, or a subscriber's for `relay --allow`): the key in the file the
    /// text names, else the text itself when it is a Z85 key.
    ///
    /// A file comes first, and so does a name ending in `.pub` (as `segue keygen` names public keys),
    /// because the Z85 alphabet holds `/`, `.` and `-`: a path of 40 such characters
    /// (`/tmp/segue-test-0123ABCD/keys/server.pub` is one) also reads as a key, and a missing file
    /// must be reported as missing, not sent as a key.
    static func publicKey(_ given: Given, of whose: String) throws -> String {
        let text = given.value
        let expectation = "expected \(whose) public key: 40 Z85 characters, or a file holding them"
        if text.isEmpty { throw UsageError.invalidValue(text, for: given.source, expectation) }
        let exists = access(text, F_OK) == 0
        if !exists, !text.hasSuffix(".pub"), CurveKeyFile.keyProblem(text) == nil { return text }
        // No such file and not named like one: it had to be the key itself (docs/cli.md), so it is a
        // mistyped key, reported as a bad value rather than as a file that cannot be opened.
        if !exists, !text.hasSuffix(".pub") {
            let problem = CurveKeyFile.keyProblem(text) ?? "not a key"
            throw UsageError.invalidValue(text, for: given.source, expectation + " (\(problem); no such file either)")
        }
        return try CurveKeyFile.read(text).key
    }

    /// A warning when the secret key file is open to more than its owner (`segue keygen` writes them
    /// 0600), like segued's for its own key.
    static func modeWarning(_ file: CurveKeyFile) -> String? {
        guard file.mode & 0o077 != 0 else { return nil }
        var octal = String(file.mode, radix: 8)
        while octal.count < 4 { octal = "0" + octal }
        return "warning: \(file.path) is open to group or others (mode \(octal)); it holds a secret key, which "
            + "'segue keygen' writes with mode 0600: chmod 600 \(file.path)"
    }
}
