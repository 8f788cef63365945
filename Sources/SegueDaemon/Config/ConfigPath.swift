import SegueCore

/// A JSONPath-style location in the config file, as error messages print it: `$`, `$.limits`,
/// `$.command[1]`, `$.security.curve.clients[0].role`; a key that is not an identifier is bracketed
/// and quoted as a JSON string (`$["bad key"]`) so the path stays unambiguous.
struct ConfigPath: Equatable, Sendable, CustomStringConvertible {
    private(set) var description: String

    static let root = ConfigPath(description: "$")

    func key(_ key: String) -> ConfigPath {
        let isIdentifier =
            !key.isEmpty && key.unicodeScalars.allSatisfy(Self.identifierScalar) && !("0"..."9").contains(key.first!)
        if isIdentifier { return ConfigPath(description: description + "." + key) }
        // A JSON string literal: a control character in a key stays on the message's one line.
        return ConfigPath(description: description + "[" + JSON.string(key).serialized() + "]")
    }

    func index(_ index: Int) -> ConfigPath { ConfigPath(description: description + "[\(index)]") }

    /// `path` (a location another part of segued printed, such as the core's `$.animators[0]`) with
    /// `key` after it, spelled as `key(_:)` spells it.
    static func appending(_ key: String, to path: String) -> String {
        ConfigPath(description: path).key(key).description
    }

    private static func identifierScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "_": true
        default: false
        }
    }
}
