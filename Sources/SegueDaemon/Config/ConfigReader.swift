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
        guard case .object(let object) = value else { throw .config(at: path, "must be an object") }
        self.object = object
        self.path = path
        self.known = known
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
                "must be a number from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound))")
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
            throw .config(at: path.key(key), "must be \(Self.oneOf(choices))")
        }
        return word
    }

    mutating func array(_ key: String) throws(ConfigError) -> [JSON]? {
        guard let value = value(key) else { return nil }
        guard let array = value.arrayValue else { throw .config(at: path.key(key), "must be an array") }
        return array
    }

    /// Fails on the first member that was never read, in file order.
    func finish() throws(ConfigError) {
        for key in object.keys where !read.contains(key) {
            throw .config(at: path.key(key), "unknown key; expected one of \(known.joined(separator: ", "))")
        }
    }

    static func int(_ value: JSON, at path: ConfigPath, in range: ClosedRange<Int>) throws(ConfigError) -> Int {
        guard let number = value.int64Value, let int = Int(exactly: number), range.contains(int) else {
            throw .config(at: path, "must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return int
    }

    static func string(_ value: JSON, at path: ConfigPath) throws(ConfigError) -> String {
        guard let string = value.stringValue, !string.isEmpty else {
            throw .config(at: path, "must be a non-empty string")
        }
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
