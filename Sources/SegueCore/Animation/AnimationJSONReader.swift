/// A strict view of one JSON object in an animator specification: it knows its JSON path, so every
/// rejection names where the bad value is (`animator.curve.bezier[0] must be in [0, 1]; got 1.5.`), and it
/// refuses keys it was not told about, naming them, so a typo is an error rather than a silent default.
struct AnimationJSONReader {
    let object: JSONObject
    let path: String

    init(_ json: JSON, path: String) throws(CoreError) {
        guard case .object(let object) = json else {
            throw Self.invalid("\(path) must be an object; got \(Self.describe(json)).")
        }
        self.object = object
        self.path = path
    }

    static func invalid(_ message: String) -> CoreError { CoreError(.invalidArgument, message) }

    /// Rejects the first key not in `allowed`.
    func allowOnly(_ allowed: [String]) throws(CoreError) {
        for key in object.keys where !allowed.contains(key) {
            throw Self.invalid(
                "\(path) has unknown key \"\(key)\"; allowed keys are \(allowed.joined(separator: ", ")).")
        }
    }

    func has(_ key: String) -> Bool { object[key] != nil }

    /// A finite number, or `nil` when the key is absent.
    func number(_ key: String) throws(CoreError) -> Double? {
        guard let value = object[key] else { return nil }
        guard let number = value.doubleValue, number.isFinite else {
            throw Self.invalid("\(path).\(key) must be a number; got \(Self.describe(value)).")
        }
        return number
    }

    func requiredNumber(_ key: String) throws(CoreError) -> Double {
        guard let number = try number(key) else { throw Self.invalid("\(path).\(key) is required.") }
        return number
    }

    /// A number within `range` (closed unless `openBelow`), or `nil` when absent.
    func number(_ key: String, in range: ClosedRange<Double>, openBelow: Bool = false) throws(CoreError) -> Double? {
        guard let number = try number(key) else { return nil }
        try Self.check(number, in: range, openBelow: openBelow, path: "\(path).\(key)")
        return number
    }

    func string(_ key: String) throws(CoreError) -> String? {
        guard let value = object[key] else { return nil }
        guard let string = value.stringValue else {
            throw Self.invalid("\(path).\(key) must be a string; got \(Self.describe(value)).")
        }
        return string
    }

    func bool(_ key: String) throws(CoreError) -> Bool? {
        guard let value = object[key] else { return nil }
        guard let bool = value.boolValue else {
            throw Self.invalid("\(path).\(key) must be true or false; got \(Self.describe(value)).")
        }
        return bool
    }

    static func check(_ number: Double, in range: ClosedRange<Double>, openBelow: Bool = false, path: String)
        throws(CoreError)
    {
        let inRange = openBelow ? number > range.lowerBound && number <= range.upperBound : range.contains(number)
        guard inRange else {
            let low = openBelow ? "(" : "["
            throw invalid(
                "\(path) must be in \(low)\(format(range.lowerBound)), \(format(range.upperBound))]; got "
                    + "\(format(number))."
            )
        }
    }

    /// Integers without a trailing ".0", so messages read `[0, 1]`.
    static func format(_ number: Double) -> String {
        if let integer = Int64(exactly: number) { return String(integer) }
        return String(number)
    }

    /// A short description of an unexpected value for messages.
    static func describe(_ json: JSON) -> String {
        switch json {
        case .null: "null"
        case .bool(let b): String(b)
        case .int(let i): String(i)
        case .double(let d): format(d)
        case .string(let s): "the string \"\(s)\""
        case .array: "an array"
        case .object: "an object"
        }
    }
}
