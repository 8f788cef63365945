/// A strict view of one JSON object in an animator specification: it knows its JSON path, so every
/// rejection names where the bad value is (`animator.curve.bezier[0] must be in [0, 1]; got 1.5.`), and it
/// refuses keys it was not told about, naming them, so a typo is an error rather than a silent default.
///
/// Codes follow the rule of `CoreError+Decoding.swift`, as for every other part of a request: a wrong
/// type, a missing or unknown key is `bad_request`; a value out of range or not allowed
/// `invalid_argument`.
struct AnimationJSONReader {
    let object: JSONObject
    let path: String

    init(_ json: JSON, path: String) throws(CoreError) {
        object = try json.object(at: path)
        self.path = path
    }

    /// Rejects the first key not in `allowed`.
    func allowOnly(_ allowed: [String]) throws(CoreError) {
        for key in object.keys where !allowed.contains(key) {
            var error = CoreError.malformed(
                "\(path) has unknown key \"\(key.prefix(40))\"; allowed keys are \(allowed.joined(separator: ", ")).")
            error.unknownToThisBuild = true
            throw error
        }
    }

    func has(_ key: String) -> Bool { object[key] != nil }

    /// A finite number within `range` (closed unless `openBelow`), or `nil` when the key is absent.
    func number(_ key: String, in range: ClosedRange<Double>? = nil, openBelow: Bool = false) throws(CoreError)
        -> Double?
    {
        try object[key]?.number(at: "\(path).\(key)", in: range, openBelow: openBelow)
    }

    /// A number within `range` that must be there; `what` completes "is required: ...".
    func requiredNumber(_ key: String, in range: ClosedRange<Double>, openBelow: Bool = false, _ what: String)
        throws(CoreError) -> Double
    {
        guard let number = try number(key, in: range, openBelow: openBelow) else {
            throw .missing("\(path).\(key)", what)
        }
        return number
    }

    func string(_ key: String) throws(CoreError) -> String? {
        try object[key]?.string(at: "\(path).\(key)")
    }

    func bool(_ key: String) throws(CoreError) -> Bool? {
        try object[key]?.bool(at: "\(path).\(key)")
    }
}
