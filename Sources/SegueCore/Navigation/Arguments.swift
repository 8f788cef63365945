/// Reads the members of a request or config object, remembering which were read so that anything
/// left over can be rejected by name ("unknown fields are rejected with a message that names them").
public struct Arguments {
    public let object: JSONObject
    /// How messages name this object, e.g. `request` or `create.endRule`.
    public let path: String
    /// Keys read so far. A request has a handful of members, so a linear scan of a small array beats
    /// hashing every key into a set (this runs for every command the daemon decodes).
    private var used: [String] = []

    public init(_ object: JSONObject, path: String, ignoring: [String] = []) {
        self.object = object
        self.path = path
        self.used = ignoring
    }

    public init(_ json: JSON, path: String) throws(CoreError) {
        guard let object = json.objectValue else { throw CoreError(.badRequest, "\(path) must be a JSON object.") }
        self.init(object, path: path)
    }

    private func name(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    public mutating func raw(_ key: String) -> JSON? {
        if !used.contains(key) { used.append(key) }
        if case .null? = object[key] { return nil }
        return object[key]
    }

    public mutating func string(_ key: String) throws(CoreError) -> String? {
        guard let value = raw(key) else { return nil }
        guard let s = value.stringValue else { throw CoreError(.badRequest, "\(name(key)) must be a string.") }
        return s
    }

    public mutating func bool(_ key: String) throws(CoreError) -> Bool? {
        guard let value = raw(key) else { return nil }
        guard let b = value.boolValue else { throw CoreError(.badRequest, "\(name(key)) must be true or false.") }
        return b
    }

    /// A finite number; NaN, infinities and non-numbers are rejected.
    public mutating func double(_ key: String, in range: ClosedRange<Double>? = nil) throws(CoreError) -> Double? {
        guard let value = raw(key) else { return nil }
        guard let d = value.doubleValue, d.isFinite else {
            throw CoreError(.badRequest, "\(name(key)) must be a finite number.")
        }
        if let range, !range.contains(d) {
            throw CoreError(
                .invalidArgument, "\(name(key)) must be between \(range.lowerBound) and \(range.upperBound), not \(d).")
        }
        return d
    }

    public mutating func int(_ key: String, in range: ClosedRange<Int64>? = nil) throws(CoreError) -> Int64? {
        guard let value = raw(key) else { return nil }
        guard let i = value.int64Value else { throw CoreError(.badRequest, "\(name(key)) must be an integer.") }
        if let range, !range.contains(i) {
            throw CoreError(
                .invalidArgument, "\(name(key)) must be between \(range.lowerBound) and \(range.upperBound), not \(i).")
        }
        return i
    }

    public mutating func object(_ key: String) throws(CoreError) -> JSONObject? {
        guard let value = raw(key) else { return nil }
        guard let o = value.objectValue else { throw CoreError(.badRequest, "\(name(key)) must be an object.") }
        return o
    }

    public mutating func array(_ key: String) throws(CoreError) -> [JSON]? {
        guard let value = raw(key) else { return nil }
        guard let a = value.arrayValue else { throw CoreError(.badRequest, "\(name(key)) must be an array.") }
        return a
    }

    public mutating func required<T>(_ key: String, _ read: (inout Arguments, String) throws(CoreError) -> T?)
        throws(CoreError) -> T
    {
        guard let value = try read(&self, key) else {
            throw CoreError(.badRequest, "\(name(key)) is required.")
        }
        return value
    }

    /// Fails with `bad_request` naming every member that was never read.
    public func rejectUnknown(allowedHint: String? = nil) throws(CoreError) {
        let unknown = object.keys.filter { !used.contains($0) }
        guard !unknown.isEmpty else { return }
        let list = unknown.map { "\"\($0.prefix(64))\"" }.joined(separator: ", ")
        let noun = unknown.count == 1 ? "field" : "fields"
        let hint = allowedHint.map { " \($0)" } ?? ""
        throw CoreError(.badRequest, "Unknown \(noun) \(list) in \(path.isEmpty ? "request" : path).\(hint)")
    }
}
