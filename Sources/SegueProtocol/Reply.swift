import SegueCore

/// Reply bodies (docs/protocol.md, "Requests and replies"): `{"ok": true, "id": ..., ...}` or
/// `{"ok": false, "id": ..., "error": {"code", "message"}}`.
package enum Reply {
    package static func ok(id: String?, _ fields: JSONObject = [:]) -> JSON {
        var o: JSONObject = ["ok": true, "id": id.map(JSON.string) ?? .null]
        for (k, v) in fields.members { o[k] = v }
        return .object(o)
    }

    package static func error(id: String?, _ error: WireError) -> JSON {
        var e: JSONObject = ["code": .string(error.code.rawValue), "message": .string(error.message)]
        for (k, v) in error.details.sorted(by: { $0.key < $1.key }) { e[k] = .int(v) }
        return .object(["ok": false, "id": id.map(JSON.string) ?? .null, "error": .object(e)])
    }

    package static func error(id: String?, _ code: ErrorCode, _ message: String) -> JSON {
        error(id: id, WireError(code, message))
    }
}
