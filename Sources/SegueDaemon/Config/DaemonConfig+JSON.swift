import SegueCore
import SegueWire

/// Reading the config file's JSON strictly, and writing the effective config back as JSON for
/// `--check-config`. Writing then reading yields the same config (tested), so the printed config can
/// be saved as a config file.
extension DaemonConfig {
    static let topLevelKeys = [
        "dataDir", "store", "command", "publish", "publishFrames", "frameRate", "durability", "logLevel",
        "heartbeatSeconds",
        "presentationDelay", "snapshotEvery", "limits", "security", "animators", "cluster",
    ]
    static let limitKeys = [
        "maxMessageBytes", "maxParamsBytes", "maxNavigators", "maxQueue", "maxStackDepth",
        "publishHighWaterMark", "interactionTimeoutSeconds",
    ]
    static let curveKeys = ["serverSecretKeyFile", "clients"]
    static let clientKeys = ["publicKey", "publicKeyFile", "role"]
    /// Every object of the file with its keys (`animators` are checked by the core, rule by rule).
    static let shape = ConfigReader.Shape(
        known: topLevelKeys,
        members: [
            "store": .init(known: StoreConfig.keys),
            "limits": .init(known: limitKeys),
            "security": .init(
                known: ["curve"],
                members: [
                    "curve": .init(known: curveKeys, members: ["clients": .init(known: clientKeys, isList: true)])
                ]),
            "cluster": .init(known: ClusterConfig.keys),
        ])

    /// Reads and checks a config file; keys it leaves out keep their defaults.
    ///
    /// - Parameter checkingEndpoints: false when the command line replaces endpoint lists, which
    ///   are then checked for clashes after it did.
    package init(file: String, checkingEndpoints: Bool = true) throws(ConfigError) {
        let bytes = try ConfigFile.contents(file)
        let json: JSON
        do {
            json = try JSON.parse(bytes)
        } catch {
            let (line, column) = error.position(in: bytes)
            throw ConfigError(
                .config,
                "\(file) is not valid JSON: line \(line), column \(column): \(error.message)\(Self.jsonHint(bytes, error))"
            )
        }
        do throws(ConfigError) { try self.init(json: json, checkingEndpoints: checkingEndpoints) } catch {
            var error = error
            if error.location?.hasPrefix("$") == true { error.file = file }
            throw error
        }
        configFile = file
    }

    /// What usually makes a hand-written config invalid, when the bytes show it: a byte-order mark
    /// an editor added, or a comment (JSON has none).
    static func jsonHint(_ bytes: [UInt8], _ error: JSONError) -> String {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            return " (the file starts with a UTF-8 byte-order mark; save it without one)"
        }
        if error.offset + 1 < bytes.count, bytes[error.offset] == UInt8(ascii: "/"),
            [UInt8(ascii: "/"), UInt8(ascii: "*")].contains(bytes[error.offset + 1])
        {
            return " (JSON has no comments; remove it)"
        }
        return ""
    }

    /// Checks a parsed config document. Key files named under `security` are read now, so a missing
    /// or malformed key fails start-up (and `--check-config`) rather than the first connection.
    package init(json: JSON, checkingEndpoints: Bool = true) throws(ConfigError) {
        self.init()
        let root = ConfigPath.root
        try ConfigReader.rejectUnknownKeys(json, Self.shape, at: root)
        var reader = try ConfigReader(json, at: root, known: Self.topLevelKeys)
        if let dataDir = try reader.string("dataDir") { self.dataDir = dataDir }
        if let value = reader.value("store") { store = try StoreConfig.read(value, at: root.key("store")) }
        if let list = try reader.array("command") { command = try Self.endpoints(list, at: root.key("command")) }
        if let list = try reader.array("publish") { publish = try Self.endpoints(list, at: root.key("publish")) }
        if let list = try reader.array("publishFrames"), !list.isEmpty {
            publishFrames = try Self.endpoints(list, at: root.key("publishFrames"))
        }
        if let rate = try reader.int("frameRate", in: Self.frameRateRange) { frameRate = rate }
        if let word = try reader.choice("durability", from: Durability.allCases.map(\.rawValue)) {
            durability = Durability(rawValue: word)!
        }
        if let word = try reader.choice("logLevel", from: LogLevel.names) { logLevel = LogLevel(rawValue: word)! }
        if let seconds = try reader.number("heartbeatSeconds", in: Self.heartbeatRange) { heartbeatSeconds = seconds }
        if let seconds = try reader.number("presentationDelay", in: Self.presentationDelayRange) {
            presentationDelay = seconds
        }
        if let every = try reader.int("snapshotEvery", in: Self.snapshotEveryRange) { snapshotEvery = every }
        if let value = reader.value("limits") { limits = try Self.limits(value, at: root.key("limits")) }
        if let value = reader.value("security") { security = try Self.security(value, at: root.key("security")) }
        animators = reader.value("animators")
        if let value = reader.value("cluster") { cluster = try ClusterConfig.read(value, at: root.key("cluster")) }
        try reader.finish()
        if checkingEndpoints { try checkEndpointsAreDistinct() }
    }

    /// The effective config as a config document, keys in documentation order. Secret keys appear as
    /// the path they were read from, never as key material.
    package var json: JSON {
        var object: JSONObject = [
            "dataDir": .string(dataDir),
            "store": store.json,
            "command": .array(command.map { .string($0.description) }),
            "publish": .array(publish.map { .string($0.description) }),
            "frameRate": .int(frameRate),
            "durability": .string(durability.rawValue),
            "logLevel": .string(logLevel.rawValue),
            "heartbeatSeconds": Self.number(heartbeatSeconds),
            "presentationDelay": Self.number(presentationDelay),
            "snapshotEvery": .int(snapshotEvery),
            "limits": [
                "maxMessageBytes": .int(limits.maxMessageBytes),
                "maxParamsBytes": .int(limits.maxParamsBytes),
                "maxNavigators": .int(limits.maxNavigators),
                "maxQueue": .int(limits.maxQueue),
                "maxStackDepth": .int(limits.maxStackDepth),
                "publishHighWaterMark": .int(limits.publishHighWaterMark),
                "interactionTimeoutSeconds": Self.number(limits.interactionTimeoutSeconds),
            ],
        ]
        if let curve = security?.curve {
            let clients: [JSON] = curve.clients.map { client in
                switch client.source {
                case .inline: ["publicKey": .string(client.publicKey.z85), "role": .string(client.role.rawValue)]
                case .file(let path): ["publicKeyFile": .string(path), "role": .string(client.role.rawValue)]
                }
            }
            object["security"] = [
                "curve": ["serverSecretKeyFile": .string(curve.serverSecretKeyFile), "clients": .array(clients)]
            ]
        }
        // Only when set, so the default config prints as before the frames socket existed.
        if !publishFrames.isEmpty { object["publishFrames"] = .array(publishFrames.map { .string($0.description) }) }
        if let animators { object["animators"] = animators }
        if let cluster { object["cluster"] = cluster.json }
        return .object(object)
    }

    /// Whole seconds print as integers (`1`, not `1.0`), as an operator writes them.
    private static func number(_ value: Double) -> JSON {
        if let int = Int64(exactly: value) { return .int(int) }
        return .double(value)
    }

    static func endpoints(_ list: [JSON], at path: ConfigPath) throws(ConfigError) -> [Endpoint] {
        guard !list.isEmpty else { throw .config(at: path, "must list at least one endpoint") }
        var endpoints: [Endpoint] = []
        for (index, value) in list.enumerated() {
            let text = try ConfigReader.string(value, at: path.index(index))
            do throws(EndpointError) {
                let endpoint = try Endpoint(binding: text)
                guard !endpoints.contains(where: endpoint.repeats) else {
                    throw EndpointError("'\(text)' is listed twice")
                }
                endpoints.append(endpoint)
            } catch {
                throw .config(at: path.index(index), error.reason)
            }
        }
        return endpoints
    }

    /// One endpoint cannot be bound by two sockets.
    func checkEndpointsAreDistinct() throws(ConfigError) {
        for (index, endpoint) in publish.enumerated() {
            guard let clash = command.first(where: endpoint.clashes) else { continue }
            throw .config(
                at: ConfigPath.root.key("publish").index(index),
                "'\(endpoint)' is also a command endpoint\(Self.as(clash, endpoint))")
        }
        for (index, endpoint) in publishFrames.enumerated() {
            let (other, clash) =
                command.first(where: endpoint.clashes).map { ("command", $0) }
                ?? publish.first(where: endpoint.clashes).map { ("publish", $0) } ?? ("", nil)
            guard let clash else { continue }
            throw .config(
                at: ConfigPath.root.key("publishFrames").index(index),
                "'\(endpoint)' is also a \(other) endpoint\(Self.as(clash, endpoint))")
        }
    }

    /// ` (as 'tcp://*:7400')`: the other endpoint, when it is written differently.
    static func `as`(_ clash: Endpoint, _ endpoint: Endpoint) -> String {
        clash == endpoint ? "" : " (as '\(clash)')"
    }

    private static func limits(_ value: JSON, at path: ConfigPath) throws(ConfigError) -> Limits {
        var reader = try ConfigReader(value, at: path, known: limitKeys)
        var limits = Limits()
        if let v = try reader.int("maxMessageBytes", in: Limits.maxMessageBytesRange) { limits.maxMessageBytes = v }
        if let v = try reader.int("maxParamsBytes", in: Limits.maxParamsBytesRange) {
            limits.maxParamsBytes = v
        } else {
            // The default follows a smaller message limit: params travel inside one message.
            limits.maxParamsBytes = min(limits.maxParamsBytes, limits.maxMessageBytes)
        }
        if let v = try reader.int("maxNavigators", in: Limits.maxNavigatorsRange) { limits.maxNavigators = v }
        if let v = try reader.int("maxQueue", in: Limits.maxQueueRange) { limits.maxQueue = v }
        if let v = try reader.int("maxStackDepth", in: Limits.maxStackDepthRange) { limits.maxStackDepth = v }
        if let v = try reader.int("publishHighWaterMark", in: Limits.publishHighWaterMarkRange) {
            limits.publishHighWaterMark = v
        }
        if let v = try reader.number("interactionTimeoutSeconds", in: Limits.interactionTimeoutRange) {
            limits.interactionTimeoutSeconds = v
        }
        try reader.finish()
        guard limits.maxParamsBytes <= limits.maxMessageBytes else {
            throw .config(
                at: path.key("maxParamsBytes"),
                "must not exceed maxMessageBytes (\(limits.maxMessageBytes)): params travel inside one message")
        }
        return limits
    }

    private static func security(_ value: JSON, at path: ConfigPath) throws(ConfigError) -> SecurityConfig {
        var reader = try ConfigReader(value, at: path, known: ["curve"])
        let curveValue = reader.value("curve")
        try reader.finish()
        guard let curveValue else { throw .config(at: path.key("curve"), "is required in security") }

        let curvePath = path.key("curve")
        var curve = try ConfigReader(curveValue, at: curvePath, known: curveKeys)
        guard let secretFile = try curve.string("serverSecretKeyFile") else {
            throw .config(
                at: curvePath.key("serverSecretKeyFile"), "is required: the file holding the server's Z85 secret key")
        }
        let secret = try key(fromFile: secretFile, at: curvePath.key("serverSecretKeyFile"))
        try refusePublicKey(secret, from: secretFile, at: curvePath.key("serverSecretKeyFile"))
        guard let list = try curve.array("clients"), !list.isEmpty else {
            throw .config(at: curvePath.key("clients"), "must list at least one client; without one nobody can connect")
        }
        try curve.finish()

        var clients: [SecurityConfig.Client] = []
        for (index, item) in list.enumerated() {
            let clientPath = curvePath.key("clients").index(index)
            var client = try ConfigReader(item, at: clientPath, known: clientKeys)
            let inline = try client.string("publicKey")
            let file = try client.string("publicKeyFile")
            guard let roleWord = try client.choice("role", from: SecurityConfig.Role.allCases.map(\.rawValue)) else {
                throw .config(at: clientPath.key("role"), "is required: \"controller\" or \"observer\"")
            }
            try client.finish()
            let key: CurveKey
            let source: SecurityConfig.Client.Source
            switch (inline, file) {
            case (let text?, nil):
                do throws(CurveKeyError) { key = try CurveKey(z85: text) } catch {
                    throw .config(at: clientPath.key("publicKey"), "must be " + error.reason)
                }
                source = .inline
            case (nil, let path?):
                key = try Self.key(fromFile: path, at: clientPath.key("publicKeyFile"))
                try refuseSecretKey(key, from: path, at: clientPath.key("publicKeyFile"))
                source = .file(path)
            case (nil, nil):
                throw .config(at: clientPath, "needs publicKey or publicKeyFile")
            case (_?, _?):
                throw .config(at: clientPath, "has both publicKey and publicKeyFile; keep one")
            }
            if clients.contains(where: { $0.publicKey == key }) {
                throw .config(at: clientPath, "lists a public key already listed; give each client one entry")
            }
            clients.append(
                SecurityConfig.Client(publicKey: key, source: source, role: SecurityConfig.Role(rawValue: roleWord)!))
        }
        return SecurityConfig(curve: .init(serverSecretKeyFile: secretFile, serverSecretKey: secret, clients: clients))
    }

    /// A public key given where the secret belongs (`server.pub` for `server.key`) passes every check
    /// of a key's form and fails every client's handshake: refused by the file `segue keygen` wrote it
    /// in, or by the secret beside it that it is the public key of.
    private static func refusePublicKey(_ key: CurveKey, from path: String, at location: ConfigPath)
        throws(ConfigError)
    {
        guard let secretPath = otherHalf(of: path, from: ".pub", to: ".key") else { return }
        if let sibling = try? Self.key(fromFile: secretPath, at: location), arePair(secret: sibling, public: key) {
            throw .config(
                at: location,
                "\(path) holds the public key of \(secretPath); give the secret key file, \(secretPath)")
        }
        throw .config(
            at: location,
            "\(path) is named as a public key (segue keygen writes NAME.key, the secret, and NAME.pub); give "
                + "the server's secret key file")
    }

    /// A client's secret key given where its public key belongs (`ops.key` for `ops.pub`) also passes
    /// every check of a key's form, admits nobody, and puts a secret in the server's config: refused
    /// when the public key file beside it (`segue keygen` writes both) is this key's public key. A
    /// `.key` file alone may be a public key another tool named so.
    private static func refuseSecretKey(_ key: CurveKey, from path: String, at location: ConfigPath)
        throws(ConfigError)
    {
        guard let publicPath = otherHalf(of: path, from: ".key", to: ".pub"),
            let sibling = try? Self.key(fromFile: publicPath, at: location), arePair(secret: key, public: sibling)
        else { return }
        throw .config(
            at: location, "\(path) holds the secret key of \(publicPath); give the public key file, \(publicPath)")
    }

    /// The other file of a `segue keygen` pair (`NAME.key`, `NAME.pub`), if `path` is named as one half.
    private static func otherHalf(of path: String, from suffix: String, to other: String) -> String? {
        path.hasSuffix(suffix) ? String(path.dropLast(suffix.count)) + other : nil
    }

    private static func arePair(secret: CurveKey, public: CurveKey) -> Bool {
        (try? ZMQCurve.publicKey(fromSecret: secret.z85)) == `public`.z85
    }

    /// A key file holds the 40 Z85 characters, optionally followed by whitespace (a trailing newline).
    private static func key(fromFile path: String, at location: ConfigPath) throws(ConfigError) -> CurveKey {
        var bytes = try ConfigFile.contents(path, location: location)
        while let last = bytes.last, last == 0x0A || last == 0x0D || last == 0x20 || last == 0x09 { bytes.removeLast() }
        do throws(CurveKeyError) {
            return try CurveKey(z85: String(decoding: bytes, as: UTF8.self))
        } catch {
            throw .config(at: location, "\(path) must hold " + error.reason)
        }
    }
}
