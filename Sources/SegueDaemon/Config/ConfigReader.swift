import SegueCore

/// Reads one JSON object of the config file member by member, strictly: every value is checked for
/// type and range with a message that names its path, and `finish()` rejects any member nobody read,
/// so a misspelt key (`frameRte`) fails start-up instead of silently keeping a default.
///
/// `null` counts as absent: the default applies.
struct ConfigReader {
    let path: ConfigPath
    private let object: JSONObject
    private let known: [String]
    private var read: Set<String> = []

    /// - Parameter known: every key this object may have, in documentation order, for the message
    ///   that lists them when an unknown one turns up.
    init(_ value: JSON, at path: ConfigPath, known: [String]) throws(ConfigError) {
        guard case .object(let object) = value else { throw .config(at: path, "must be an object\(Self.got(value))") }
        self.object = object
        self.path = path
        self.known = known
        // Before any value is read: a misspelt key (`shard` for `shards`) would otherwise show as
        // the real key being required, and the typo never be named.
        if let unknown = object.keys.first(where: { !known.contains($0) }) { throw unknownKey(unknown) }
    }

    mutating func value(_ key: String) -> JSON? {
        precondition(known.contains(key), "\(key) is missing from the known keys of \(path)")
        read.insert(key)
        guard let value = object[key], !value.isNull else { return nil }
        return value
    }

    mutating func int(_ key: String, in range: ClosedRange<Int>) throws(ConfigError) -> Int? {
        guard let value = value(key) else { return nil }
        return try Self.int(value, at: path.key(key), in: range)
    }

    /// A number that may have a fraction, such as seconds.
    mutating func number(_ key: String, in range: ClosedRange<Double>) throws(ConfigError) -> Double? {
        guard let value = value(key) else { return nil }
        guard let number = value.doubleValue, range.contains(number) else {
            throw .config(
                at: path.key(key),
                "must be a number from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound))"
                    + Self.got(value))
        }
        return number
    }

    mutating func string(_ key: String) throws(ConfigError) -> String? {
        guard let value = value(key) else { return nil }
        return try Self.string(value, at: path.key(key))
    }

    /// One of a fixed set of words.
    mutating func choice(_ key: String, from choices: [String]) throws(ConfigError) -> String? {
        guard let value = value(key) else { return nil }
        guard let word = value.stringValue, choices.contains(word) else {
            throw .config(at: path.key(key), "must be \(Self.oneOf(choices))\(Self.got(value))")
        }
        return word
    }

    mutating func array(_ key: String) throws(ConfigError) -> [JSON]? {
        guard let value = value(key) else { return nil }
        guard let array = value.arrayValue else {
            throw .config(at: path.key(key), "must be an array\(Self.got(value))")
        }
        return array
    }

    /// Fails on the first member that was never read, in file order.
    func finish() throws(ConfigError) {
        for key in object.keys where !read.contains(key) { throw unknownKey(key) }
    }

    private func unknownKey(_ key: String) -> ConfigError { Self.unknownKey(key, at: path, known: known) }

    private static func unknownKey(_ key: String, at path: ConfigPath, known: [String]) -> ConfigError {
        .config(at: path.key(key), "unknown key; expected one of \(known.joined(separator: ", "))")
    }

    /// The keys an object of the config may have, and the shapes of its members that hold objects.
    struct Shape {
        var known: [String]
        /// Members that are objects, or arrays of objects, by key.
        var members: [String: Shape] = [:]
        /// An array whose items are objects of this shape (`clients`), not one object.
        var isList = false
    }

    /// Names the first unknown key anywhere in `value`, outer objects first, before any value is
    /// checked: a misspelt nested key (`limits.maxQueu`) is named even when another value is also
    /// wrong. A member of the wrong type is left to the check of its value.
    static func rejectUnknownKeys(_ value: JSON, _ shape: Shape, at path: ConfigPath) throws(ConfigError) {
        switch value {
        case .object(let object) where !shape.isList:
            if let unknown = object.keys.first(where: { !shape.known.contains($0) }) {
                throw unknownKey(unknown, at: path, known: shape.known)
            }
            for key in object.keys {
                guard let member = shape.members[key], let memberValue = object[key] else { continue }
                try rejectUnknownKeys(memberValue, member, at: path.key(key))
            }
        case .array(let items) where shape.isList:
            var item = shape
            item.isList = false
            for (index, value) in items.enumerated() { try rejectUnknownKeys(value, item, at: path.index(index)) }
        default: break
        }
    }

    /// `; got "60"`: the value a check refused, as request errors show it (`JSON.messageText`).
    static func got(_ value: JSON) -> String { "; got \(value.messageText)" }

    static func int(_ value: JSON, at path: ConfigPath, in range: ClosedRange<Int>) throws(ConfigError) -> Int {
        guard let number = value.int64Value, let int = Int(exactly: number), range.contains(int) else {
            throw .config(at: path, "must be an integer from \(range.lowerBound) to \(range.upperBound)\(got(value))")
        }
        return int
    }

    static func string(_ value: JSON, at path: ConfigPath) throws(ConfigError) -> String {
        guard let string = value.stringValue, !string.isEmpty else {
            throw .config(at: path, "must be a non-empty string\(got(value))")
        }
        // Paths and endpoints go to C, where a NUL would end them early.
        guard !string.utf8.contains(0) else { throw .config(at: path, "must not contain a NUL character (\\u0000)") }
        return string
    }

    /// `"full" or "relaxed"`, `one of "trace", "debug", ...`: how messages list the accepted words.
    static func oneOf(_ choices: [String]) -> String {
        let quoted = choices.map { "\"\($0)\"" }
        if quoted.count == 2 { return "\(quoted[0]) or \(quoted[1])" }
        return "one of " + quoted.joined(separator: ", ")
    }

    /// `0.1`, `60`: a bound as a person writes it, without a trailing `.0`.
    static func format(_ number: Double) -> String {
        if let int = Int(exactly: number) { return String(int) }
        return String(number)
    }
}
