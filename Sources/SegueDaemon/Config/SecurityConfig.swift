/// `security` in the config file: optional CURVE encryption and authentication on both sockets.
///
/// With `curve` set, the daemon is a CURVE server with the secret key from `serverSecretKeyFile`, and
/// its ZAP handler admits only the listed client public keys, each with a role: a `controller` may send
/// any command; an `observer` may read state and history and subscribe (docs/reliability.md, "Security model").
package struct SecurityConfig: Sendable, Equatable {
    package var curve: Curve

    package init(curve: Curve) { self.curve = curve }

    package struct Curve: Sendable, Equatable {
        /// The file the server's secret key was read from: 40 Z85 characters, optionally followed by a
        /// newline. Kept so `--check-config` can print the path instead of the secret.
        package var serverSecretKeyFile: String
        /// The server's secret key; the engine derives the public key with `zmq_curve_public`.
        package var serverSecretKey: CurveKey
        package var clients: [Client]

        package init(serverSecretKeyFile: String, serverSecretKey: CurveKey, clients: [Client]) {
            self.serverSecretKeyFile = serverSecretKeyFile
            self.serverSecretKey = serverSecretKey
            self.clients = clients
        }
    }

    /// A client the ZAP handler admits.
    package struct Client: Sendable, Equatable {
        /// Where the key came from, so the effective config prints what the operator wrote.
        package enum Source: Sendable, Equatable {
            case inline
            case file(String)
        }

        package var publicKey: CurveKey
        package var source: Source
        package var role: Role

        package init(publicKey: CurveKey, source: Source, role: Role) {
            self.publicKey = publicKey
            self.source = source
            self.role = role
        }
    }

    package enum Role: String, Sendable, Equatable, CaseIterable {
        /// May send every command.
        case controller
        /// May read state, list, history, stats and ping, and subscribe; mutating commands get `forbidden`.
        case observer
    }

    /// The role of a client by public key, as the ZAP handler asks it; `nil` means deny.
    package func role(of publicKey: [UInt8]) -> Role? {
        curve.clients.first { $0.publicKey.bytes == publicKey }?.role
    }
}
