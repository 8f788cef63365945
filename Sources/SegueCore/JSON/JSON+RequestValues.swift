/// A request's values read as the type the protocol says they have, at a JSON path. Every reader of
/// request members (`Arguments` for commands, `AnimationJSONReader` for animators and curves) comes
/// through here, so a value of the wrong type gets `bad_request` and a value out of range
/// `invalid_argument` wherever it sits (see `CoreError+Decoding.swift` for the rule). The path is an
/// autoclosure: built only for a message, so reading a good value allocates no path string.
extension JSON {
    package func string(at path: @autoclosure () -> String) throws(CoreError) -> String {
        guard case .string(let string) = self else { throw .wrongType(path(), expected: "a string", got: self) }
        return string
    }

    package func bool(at path: @autoclosure () -> String) throws(CoreError) -> Bool {
        guard case .bool(let flag) = self else { throw .wrongType(path(), expected: "true or false", got: self) }
        return flag
    }

    package func object(at path: @autoclosure () -> String) throws(CoreError) -> JSONObject {
        guard case .object(let object) = self else { throw .wrongType(path(), expected: "an object", got: self) }
        return object
    }

    package func array(at path: @autoclosure () -> String) throws(CoreError) -> [JSON] {
        guard case .array(let items) = self else { throw .wrongType(path(), expected: "an array", got: self) }
        return items
    }

    /// A finite number within `range` (open at its lower end with `openBelow`). The parser already
    /// refuses NaN and infinities (they are not JSON); the check here keeps values built in code honest.
    package func number(
        at path: @autoclosure () -> String, in range: ClosedRange<Double>? = nil, openBelow: Bool = false
    )
        throws(CoreError) -> Double
    {
        guard let number = doubleValue, number.isFinite else {
            throw .wrongType(path(), expected: "a number", got: self)
        }
        if let range {
            let inside = openBelow ? number > range.lowerBound && number <= range.upperBound : range.contains(number)
            guard inside else { throw .outOfRange(path(), range, openBelow: openBelow, got: number) }
        }
        return number
    }

    /// An integer within `range`. A number with a fraction is the wrong type (`bad_request`); a whole
    /// number too large for 64 bits has the right type and is out of range (`invalid_argument`).
    package func integer(at path: @autoclosure () -> String, in range: ClosedRange<Int64>? = nil) throws(CoreError)
        -> Int64
    {
        guard let integer = int64Value else {
            if let number = doubleValue, number.isFinite, number.rounded(.towardZero) == number {
                let bounds = range.flatMap { $0.upperBound == .max ? nil : "in [\($0.lowerBound), \($0.upperBound)]" }
                throw .notAllowed(path(), expected: bounds ?? "an integer that fits in 64 bits", got: self)
            }
            throw .wrongType(path(), expected: "an integer", got: self)
        }
        if let range, !range.contains(integer) {
            // `0 or more` rather than an upper bound of 9223372036854775807 nobody needs to read.
            let bounds =
                range.upperBound == .max
                ? "\(range.lowerBound) or more" : "in [\(range.lowerBound), \(range.upperBound)]"
            throw .notAllowed(path(), expected: bounds, got: self)
        }
        return integer
    }
}
