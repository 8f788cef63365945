/// How error messages show a value a client sent, after "got": short, and unambiguous about its JSON
/// type, because the type is usually what is wrong (`got "0.5"` says the number was sent as a string).
extension JSON {
    package var messageText: String {
        switch self {
        case .null: return "null"
        case .bool(let flag): return String(flag)
        case .int(let integer): return String(integer)
        case .double(let number): return Self.messageText(number)
        case .string(let string):
            // Cut, so that a message stays a sentence rather than an echo of a long request.
            return JSONSerializer.quoted(string.count <= 40 ? string : String(string.prefix(40)) + "...")
        case .array(let items):
            switch items.count {
            case 0: return "an empty array"
            case 1: return "an array of 1 value"
            default: return "an array of \(items.count) values"
            }
        case .object(let object):
            // The keys say which shape the client meant (`{"ease": 1}` for a curve).
            guard !object.keys.isEmpty else { return "an empty object" }
            let shown = object.keys.prefix(3).map { JSONSerializer.quoted(String($0.prefix(40))) }
            return "an object with " + shown.joined(separator: ", ") + (object.count > 3 ? ", ..." : "")
        }
    }

    /// A number as messages write it: integers without a trailing ".0", so ranges read `[0, 1]`.
    package static func messageText(_ number: Double) -> String {
        if let integer = Int64(exactly: number) { return String(integer) }
        return String(number)
    }
}
