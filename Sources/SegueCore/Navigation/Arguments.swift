/// Reads the members of a request or config object, remembering which were read so that anything
/// left over can be rejected by name ("unknown fields are rejected with a message that names them").
package struct Arguments {
    package let object: JSONObject
    /// How messages name this object, e.g. `request` or `create.endRule`.
    package let path: String
    /// Keys read so far. A request has a handful of members, so a linear scan of a small array beats
    /// hashing every key into a set (this runs for every command the daemon decodes).
    private var used: [String] = []

    package init(_ object: JSONObject, path: String, ignoring: [String] = []) {
        self.object = object
        self.path = path
        // Room for what a command reads, so the reads append without growing the array.
        used.reserveCapacity(ignoring.count + 12)
        used.append(contentsOf: ignoring)
    }

    package init(_ json: JSON, path: String) throws(CoreError) {
        self.init(try json.object(at: path), path: path)
    }

    /// The JSON path of member `key`, as messages name it (`percent`, `endRule.threshold`).
    package func name(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    package mutating func raw(_ key: String) -> JSON? {
        if !used.contains(key) { used.append(key) }
        let value = object[key]
        if case .null? = value { return nil }
        return value
    }

    // The typed readers leave the code of a bad value to `JSON`'s readers, the one place the rule lives:
    // wrong type `bad_request`, out of range `invalid_argument`.

    package mutating func string(_ key: String) throws(CoreError) -> String? {
        try raw(key)?.string(at: name(key))
    }

    package mutating func bool(_ key: String) throws(CoreError) -> Bool? {
        try raw(key)?.bool(at: name(key))
    }

    /// A finite number, within `range` when one is given.
    package mutating func double(_ key: String, in range: ClosedRange<Double>? = nil) throws(CoreError) -> Double? {
        try raw(key)?.number(at: name(key), in: range)
    }

    package mutating func int(_ key: String, in range: ClosedRange<Int64>? = nil) throws(CoreError) -> Int64? {
        try raw(key)?.integer(at: name(key), in: range)
    }

    package mutating func object(_ key: String) throws(CoreError) -> JSONObject? {
        try raw(key)?.object(at: name(key))
    }

    package mutating func array(_ key: String) throws(CoreError) -> [JSON]? {
        try raw(key)?.array(at: name(key))
    }

    package mutating func required<T>(_ key: String, _ read: (inout Arguments, String) throws(CoreError) -> T?)
        throws(CoreError) -> T
    {
        guard let value = try read(&self, key) else {
            throw CoreError(.badRequest, "\(name(key)) is required.")
        }
        return value
    }

    /// Fails with `bad_request` naming every member that was never read. Without `allowedHint`, the message lists the members that were
    /// read, which are all the ones this object takes: every reader asks for each member it knows,
    /// present or not, so a typo is answered with the right spelling.
    package func rejectUnknown(allowedHint: String? = nil) throws(CoreError) {
        guard object.members.contains(where: { !used.contains($0.key) }) else { return }
        let unknown = object.keys.filter { !used.contains($0) }
        // A human reads the sentence: the first few names, and how many more (a request may carry
        // tens of thousands).
        let shown = 8
        var list = unknown.prefix(shown).map { "\"\($0.prefix(64))\"" }.joined(separator: ", ")
        if unknown.count > shown { list += " and \(unknown.count - shown) more" }
        let noun = unknown.count == 1 ? "field" : "fields"
        let hint = allowedHint.map { " \($0)" } ?? " Known: \(used.joined(separator: ", "))."
        var error = CoreError(.badRequest, "Unknown \(noun) \(list) in \(path.isEmpty ? "request" : path).\(hint)")
        error.unknownToThisBuild = true
        throw error
    }
}
