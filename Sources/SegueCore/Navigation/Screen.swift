/// A screen on a navigator: a route name, a daemon-assigned id and optional parameters.
///
/// Ids are `s1`, `s2`, … per navigator, generational and never reused (TCA's `StackElementID`), so
/// the same route may stand on the stack twice and a client can still name exactly one of them.
public struct Screen: Equatable, Sendable {
    public var id: String
    public var name: String
    public var params: JSONObject?

    public init(id: String, name: String, params: JSONObject? = nil) {
        self.id = id
        self.name = name
        self.params = params
    }

    public var json: JSON {
        var object: JSONObject = ["id": .string(id), "name": .string(name)]
        if let params { object["params"] = .object(params) }
        return .object(object)
    }

    public init(json: JSON, path: String) throws(CoreError) {
        guard let object = json.objectValue, let id = object["id"]?.stringValue,
            let name = object["name"]?.stringValue
        else {
            throw CoreError(.badRequest, "\(path) must be a screen object with string \"id\" and \"name\".")
        }
        var params: JSONObject?
        if let p = object["params"] {
            guard let o = p.objectValue else { throw CoreError(.badRequest, "\(path).params must be an object.") }
            params = o
        }
        self.init(id: id, name: name, params: params)
    }
}

/// A screen as a client asks for a new one: `"Detail"` or `{"name": "Detail", "params": {...}}`.
public struct ScreenSpec: Equatable, Sendable {
    public var name: String
    public var params: JSONObject?

    public init(name: String, params: JSONObject? = nil) {
        self.name = name
        self.params = params
    }

    /// Route names follow the navigator name rule, so they are safe in logs and terminal output.
    public static func isValidName(_ name: String) -> Bool { NavigatorName.isValid(name) }

    public var json: JSON {
        guard let params else { return .string(name) }
        return .object(["name": .string(name), "params": .object(params)])
    }

    public init(json: JSON, path: String) throws(CoreError) {
        var namePath = path
        switch json {
        case .string(let name):
            self.init(name: name, params: nil)
        case .object(let object):
            namePath = "\(path).name"
            for key in object.keys where key != "name" && key != "params" {
                throw .malformed(
                    "\(path) has unknown member \"\(key.prefix(40))\"; a screen has \"name\" and \"params\".")
            }
            guard let name = object["name"], !name.isNull else { throw .missing(namePath, "a route name") }
            var params: JSONObject?
            if let value = object["params"], !value.isNull { params = try value.object(at: "\(path).params") }
            self.init(name: try name.string(at: namePath), params: params)
        default:
            throw .wrongType(path, expected: "a route name or {\"name\": ..., \"params\": {...}}", got: json)
        }
        guard Self.isValidName(name) else {
            throw .notAllowed(namePath, expected: "a route name matching [A-Za-z0-9._-]{1,64}", got: .string(name))
        }
    }
}

/// One element of a `setStack` request: an existing screen kept by id, or a new one.
public enum ScreenRef: Equatable, Sendable {
    /// `{"id": "s3"}`: must name a screen on the stack.
    case id(String)
    /// A bare string: the screen with that id when the stack has one, otherwise a new screen of that
    /// route. Resolved when the command is decided, so a queued `setStack` sees the stack it meets.
    case idOrName(String)
    /// `{"name": ..., "params": ...}`: always a new screen.
    case new(ScreenSpec)

    public var json: JSON {
        switch self {
        case .id(let id): .object(["id": .string(id)])
        case .idOrName(let s): .string(s)
        case .new(let spec): .object(["name": .string(spec.name), "params": spec.params.map(JSON.object) ?? .null])
        }
    }

    public init(json: JSON, path: String) throws(CoreError) {
        if case .string(let s) = json {
            guard NavigatorName.isValid(s) else {
                throw .notAllowed(
                    path, expected: "a screen id or a route name matching [A-Za-z0-9._-]{1,64}", got: json)
            }
            self = .idOrName(s)
            return
        }
        if let object = json.objectValue, let id = object["id"] {
            guard object.count == 1 else {
                throw .malformed(
                    "\(path) has \"id\" and other members; {\"id\": \"s3\"} keeps an existing screen and takes "
                        + "nothing else, {\"name\": ..., \"params\": {...}} makes a new one.")
            }
            self = .id(try id.string(at: "\(path).id"))
            return
        }
        self = .new(try ScreenSpec(json: json, path: path))
    }
}

/// The navigator name rule: `[A-Za-z0-9._-]{1,64}` (docs/design.md, "Concepts").
public enum NavigatorName {
    public static func isValid(_ name: String) -> Bool {
        let bytes = name.utf8
        guard (1...64).contains(bytes.count) else { return false }
        return bytes.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2E
                || b == 0x5F || b == 0x2D
        }
    }
}
