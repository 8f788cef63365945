import SegueCore

/// The table of malformed requests, by family. Every case targets navigator `m` (which exists) where
/// a command is involved, so a request that slipped through would change the log and fail the test.
extension MalformedCase {
    static let syntax: [MalformedCase] = [
        text("plain text", "ping", .badRequest),
        text("whitespace only", "   \n\t ", .badRequest),
        text("unterminated object", #"{"cmd":"ping""#, .badRequest),
        text("lone closing brace", "}", .badRequest),
        text("single quotes", "{'cmd':'ping'}", .badRequest),
        text("bare keys", "{cmd:ping}", .badRequest),
        text("trailing comma", #"{"cmd":"ping",}"#, .badRequest),
        text("missing colon", #"{"cmd" "ping"}"#, .badRequest),
        text("trailing garbage", #"{"cmd":"ping"} x"#, .badRequest),
        text("two objects", #"{"cmd":"ping"}{"cmd":"ping"}"#, .badRequest),
        text("comment", #"{"cmd":"ping" /* hi */}"#, .badRequest),
        text("duplicate key", #"{"cmd":"ping","cmd":"list"}"#, .badRequest),
        text("byte order mark", "\u{FEFF}{\"cmd\":\"ping\"}", .badRequest),
        text("array", #"[{"cmd":"ping"}]"#, .badRequest),
        text("null", "null", .badRequest),
        text("true", "true", .badRequest),
        text("number", "42", .badRequest),
        text("string", #""ping""#, .badRequest),
        text("NaN", #"{"cmd":"update","id":"x","navigator":"m","percent":NaN}"#, .badRequest),
        text("Infinity", #"{"cmd":"update","id":"x","navigator":"m","percent":Infinity}"#, .badRequest),
        text("-Infinity", #"{"cmd":"update","id":"x","navigator":"m","percent":-Infinity}"#, .badRequest),
        text("1e400", #"{"cmd":"update","id":"x","navigator":"m","percent":1e400}"#, .badRequest),
        text(
            "-1e400 duration", #"{"cmd":"push","navigator":"m","screen":"A","animator":{"duration":-1e400}}"#,
            .badRequest),
        text("leading zero", #"{"cmd":"history","after":01}"#, .badRequest),
        text("leading plus", #"{"cmd":"history","after":+1}"#, .badRequest),
        text("bare fraction", #"{"cmd":"history","after":.5}"#, .badRequest),
        text("hex number", #"{"cmd":"history","after":0x10}"#, .badRequest),
        text("invalid escape", #"{"cmd":"p\xing"}"#, .badRequest),
        text("lone surrogate", #"{"cmd":"ping","id":"\ud800"}"#, .badRequest),
        text("raw control character", "{\"cmd\":\"pi\tng\"}", .badRequest),
        text("raw newline in a string", "{\"cmd\":\"ping\",\"id\":\"a\nb\"}", .badRequest),
        text(
            "deep arrays",
            #"{"cmd":"ping","x":"# + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}",
            .badRequest),
        text(
            "deep objects", String(repeating: #"{"a":"#, count: 40) + "1" + String(repeating: "}", count: 40),
            .badRequest),
        text("100 000 open brackets", String(repeating: "[", count: 100_000), .badRequest),
        text(
            "deep screen params",
            #"{"cmd":"push","navigator":"m","screen":{"name":"A","params":"#
                + String(repeating: #"{"a":"#, count: 35) + "1" + String(repeating: "}", count: 37), .badRequest),
    ]

    static let encoding: [MalformedCase] = [
        utf8("0xFF in a string", #"{"cmd":"ping","id":"@"}"#, [0xFF]),
        utf8("overlong slash", #"{"cmd":"ping","id":"@"}"#, [0xC0, 0xAF]),
        utf8("encoded surrogate", #"{"cmd":"ping","id":"@"}"#, [0xED, 0xA0, 0x80]),
        utf8("above U+10FFFF", #"{"cmd":"ping","id":"@"}"#, [0xF4, 0x90, 0x80, 0x80]),
        utf8("truncated sequence", #"{"cmd":"ping","id":"@"}"#, [0xE2, 0x82]),
        utf8("lone continuation byte", #"{"cmd":"ping","id":"@"}"#, [0x80]),
        utf8("invalid byte in a key", #"{"@":"ping"}"#, [0xFE]),
        utf8("invalid byte in cmd", #"{"cmd":"pi@ng"}"#, [0xC3]),
        utf8("invalid byte outside strings", #"{"cmd":"ping"@}"#, [0xFF]),
        utf8("latin-1 screen name", #"{"cmd":"push","navigator":"m","screen":"Caf@"}"#, [0xE9]),
        bytes("NUL bytes", [0, 0, 0, 0], .badRequest),
        bytes(
            "UTF-16 text", Array(#"{"cmd":"ping"}"#.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }), .badRequest),
    ]

    static let envelope: [MalformedCase] = [
        json("no cmd", ["id": "e", "navigator": "m"], .badRequest),
        json("empty object", [:], .badRequest),
        json("cmd is a number", ["cmd": 1, "id": "e"], .badRequest),
        json("cmd is null", ["cmd": nil, "id": "e"], .badRequest),
        json("cmd is an array", ["cmd": ["ping"], "id": "e"], .badRequest),
        json("cmd is an object", ["cmd": ["name": "ping"], "id": "e"], .badRequest),
        json("id is a bool", ["cmd": "ping", "id": true], .badRequest),
        json("id is a fraction", ["cmd": "ping", "id": 1.5], .badRequest),
        json("id is an object", ["cmd": "ping", "id": ["a": 1]], .badRequest),
        json("id is 200 bytes", ["cmd": "ping", "id": .string(String(repeating: "i", count: 200))], .invalidArgument),
        json(
            "id is empty", ["cmd": "ping", "id": ""], .invalidArgument,
            mentions: "id must be 1 to 128 bytes; got 0 bytes."),
        json("navigator is a number", ["cmd": "push", "id": "e", "navigator": 5, "screen": "A"], .badRequest),
        json("navigator is empty", ["cmd": "push", "id": "e", "navigator": "", "screen": "A"], .invalidArgument),
        json("navigator has a slash", ["cmd": "state", "id": "e", "navigator": "m/x"], .invalidArgument),
        json("navigator has a space", ["cmd": "state", "id": "e", "navigator": "m x"], .invalidArgument),
        json("navigator is not ASCII", ["cmd": "state", "id": "e", "navigator": "mé"], .invalidArgument),
        json(
            "navigator is 65 bytes",
            ["cmd": "state", "id": "e", "navigator": .string(String(repeating: "n", count: 65))],
            .invalidArgument),
        json("navigator missing on push", ["cmd": "push", "id": "e", "screen": "A"], .badRequest),
        json("navigator missing on state", ["cmd": "state", "id": "e"], .badRequest),
        json(
            "expect is negative", push(["expect": -1]), .invalidArgument, mentions: "expect must be 0 or more; got -1."),
        json("expect is a string", push(["expect": "1"]), .badRequest),
        json("expect is a fraction", push(["expect": 1.5]), .badRequest),
        json("owner is a number", nav("update", ["percent": 0.5, "owner": 7]), .badRequest),
        json("owner is empty", nav("update", ["percent": 0.5, "owner": ""]), .invalidArgument),
        json(
            "owner is 200 bytes",
            nav("update", ["percent": 0.5, "owner": .string(String(repeating: "o", count: 200))]),
            .invalidArgument),
        json("expect on ping", ["cmd": "ping", "id": "e", "expect": 1], .badRequest),
        json("owner on state", ["cmd": "state", "id": "e", "navigator": "m", "owner": "me"], .badRequest),
    ]

    static let commands: [MalformedCase] = [
        json("unknown command", ["cmd": "teleport", "id": "u"], .unknownCommand),
        json("wrong case", ["cmd": "PING", "id": "u"], .unknownCommand),
        json("empty command", ["cmd": "", "id": "u"], .unknownCommand),
        json("trailing space", ["cmd": "ping ", "id": "u"], .unknownCommand),
        json("NUL in the command", ["cmd": "ping\u{0}", "id": "u"], .unknownCommand),
        json(
            "10 000 character command", ["cmd": .string(String(repeating: "c", count: 10_000)), "id": "u"],
            .unknownCommand),
        json("prototype name", ["cmd": "__proto__", "id": "u"], .unknownCommand),
        json("unknown field on ping", ["cmd": "ping", "id": "u", "verbose": true], .badRequest),
        json("unknown field on push", push(["colour": "red"]), .badRequest),
        json("unknown field on close", nav("close", ["force": true]), .badRequest),
        json("unknown field on history", ["cmd": "history", "id": "u", "before": 3], .badRequest),
    ]

    static let arguments: [MalformedCase] = [
        json("state at negative", nav("state", ["at": -1]), .invalidArgument),
        json("state at string", nav("state", ["at": "now"]), .badRequest),
        json("state at fraction", nav("state", ["at": 1.5]), .badRequest),
        json("history limit 0", ["cmd": "history", "id": "h", "limit": 0], .invalidArgument),
        json("history limit 10001", ["cmd": "history", "id": "h", "limit": 10_001], .invalidArgument),
        json("history after negative", ["cmd": "history", "id": "h", "after": -1], .invalidArgument),
        json("history after string", ["cmd": "history", "id": "h", "after": "0"], .badRequest),
        json("create without root", ["cmd": "create", "id": "c", "navigator": "m2"], .badRequest),
        json("create root number", ["cmd": "create", "id": "c", "navigator": "m2", "root": 5], .badRequest),
        json("create root empty", ["cmd": "create", "id": "c", "navigator": "m2", "root": ""], .invalidArgument),
        json(
            "create busy maybe", ["cmd": "create", "id": "c", "navigator": "m2", "root": "A", "busy": "maybe"],
            .invalidArgument),
        json(
            "create queueLimit 0", ["cmd": "create", "id": "c", "navigator": "m2", "root": "A", "queueLimit": 0],
            .invalidArgument),
        json(
            "create endRule threshold 2",
            ["cmd": "create", "id": "c", "navigator": "m2", "root": "A", "endRule": ["threshold": 2]],
            .invalidArgument),
        json(
            "create endRule unknown member",
            ["cmd": "create", "id": "c", "navigator": "m2", "root": "A", "endRule": ["speed": 2]], .badRequest),
        json(
            "create container width 0",
            ["cmd": "create", "id": "c", "navigator": "m2", "root": "A", "container": ["width": 0, "height": 10]],
            .invalidArgument),
        json(
            "create container without height",
            ["cmd": "create", "id": "c", "navigator": "m2", "root": "A", "container": ["width": 10]], .badRequest),
        json(
            "create interactionTimeout 0",
            ["cmd": "create", "id": "c", "navigator": "m2", "root": "A", "interactionTimeout": 0], .invalidArgument),
        json(
            "create maxDepth 0", ["cmd": "create", "id": "c", "navigator": "m2", "root": "A", "maxDepth": 0],
            .invalidArgument),
        json(
            "create animators not an array",
            ["cmd": "create", "id": "c", "navigator": "m2", "root": "A", "animators": "fast"], .badRequest),
        json(
            "create rule without animator",
            ["cmd": "create", "id": "c", "navigator": "m2", "root": "A", "animators": [["operation": "push"]]],
            .badRequest),
        json(
            "create rule operation number",
            [
                "cmd": "create", "id": "c", "navigator": "m2", "root": "A",
                "animators": [["operation": 1, "animator": [:]]],
            ],
            .badRequest, mentions: "animators[0].operation must be a string; got 1."),
        json("push without screen", nav("push", [:]), .badRequest),
        json("push screen number", push(["screen": 5]), .badRequest),
        json("push screen empty object", push(["screen": [:]]), .badRequest),
        json("push screen extra member", push(["screen": ["name": "A", "x": 1]]), .badRequest),
        json("push screen params array", push(["screen": ["name": "A", "params": [1]]]), .badRequest),
        json("push screen with a space", push(["screen": "A B"]), .invalidArgument),
        json("push screen empty name", push(["screen": ""]), .invalidArgument),
        json("push screen 65 bytes", push(["screen": .string(String(repeating: "s", count: 65))]), .invalidArgument),
        json("push animated string", push(["animated": "yes"]), .badRequest),
        json("update without percent", nav("update", [:]), .badRequest),
        json("update percent null", nav("update", ["percent": nil]), .badRequest),
        json(
            "update percent string", nav("update", ["percent": "0.5"]), .badRequest,
            mentions: #"percent must be a number; got "0.5"."#),
        json("update velocity 1e6", nav("update", ["percent": 0.5, "velocity": 1e6]), .invalidArgument),
        json("update velocity string", nav("update", ["percent": 0.5, "velocity": "fast"]), .badRequest),
        json("finish completionSpeed 0", nav("finish", ["completionSpeed": 0]), .invalidArgument),
        json("finish completionSpeed negative", nav("finish", ["completionSpeed": -1]), .invalidArgument),
        json(
            "finish completionCurve spring",
            nav("finish", ["completionCurve": ["spring": ["dampingRatio": 0.5, "initialVelocity": 0]]]),
            .invalidArgument),
        json("cancel completionCurve unknown", nav("cancel", ["completionCurve": "wobbly"]), .invalidArgument),
        json("end percent string", nav("end", ["percent": "half"]), .badRequest),
        json("begin operation fly", nav("begin", ["operation": "fly"]), .invalidArgument),
        json("begin operation number", nav("begin", ["operation": 1]), .badRequest),
        json("begin push without screen", nav("begin", ["operation": "push"]), .badRequest),
        json("setStack without screens", nav("setStack", [:]), .badRequest),
        json("setStack empty", nav("setStack", ["screens": []]), .invalidArgument),
        json("setStack string", nav("setStack", ["screens": "A"]), .badRequest),
        json("setStack id number", nav("setStack", ["screens": [["id": 5]]]), .badRequest),
        json("setStack id with name", nav("setStack", ["screens": [["id": "s1", "name": "A"]]]), .badRequest),
        json("setStack bad route", nav("setStack", ["screens": ["a b"]]), .invalidArgument),
        json("setStack duplicate id", nav("setStack", ["screens": ["s1", "s1"]]), .invalidArgument),
        json("popTo without screen", nav("popTo", [:]), .badRequest),
        json("popTo number", nav("popTo", ["screen": 3]), .badRequest),
        json("popTo the top itself", nav("popTo", ["screen": "s1"]), .invalidArgument),
    ]

    static let animators: [MalformedCase] = [
        json("animator string", animator("fast"), .badRequest, mentions: #"animator must be an object; got "fast"."#),
        json("duration negative", animator(["duration": -0.5]), .invalidArgument),
        json("duration zero", animator(["duration": 0]), .invalidArgument),
        json("duration huge", animator(["duration": 1e300]), .invalidArgument),
        json("duration string", animator(["duration": "1"]), .badRequest),
        json("unknown curve", animator(["curve": "bouncy"]), .invalidArgument),
        json(
            "bezier x out of range", animator(["curve": ["bezier": [2, 0, 1, 1]]]), .invalidArgument,
            mentions: "animator.curve.bezier[0] must be in [0, 1]; got 2."),
        json(
            "bezier y a string", animator(["curve": ["bezier": [0.5, "a", 0.5, 1]]]), .badRequest,
            mentions: #"animator.curve.bezier[1] must be a number; got "a"."#),
        json("bezier of three", animator(["curve": ["bezier": [0, 0, 1]]]), .badRequest),
        json(
            "negative spring", animator(["curve": ["spring": ["dampingRatio": -1, "initialVelocity": 0]]]),
            .invalidArgument),
        json(
            "spring velocity a string",
            animator(["curve": ["spring": ["dampingRatio": 0.5, "initialVelocity": "fast"]]]), .badRequest,
            mentions: #"animator.curve.spring.initialVelocity must be a number; got "fast"."#),
        json(
            "keyframe time a string",
            animator(["keyframes": ["to": ["tracks": ["alpha": [["time": "0", "value": 1]]]]]]), .badRequest,
            mentions: #"animator.keyframes.to.tracks.alpha[0].time must be a number; got "0"."#),
        json("unknown style", animator(["style": "wobble"]), .invalidArgument),
        json("unknown edge", animator(["edge": "middle"]), .invalidArgument),
        json("unknown animator key", animator(["speed": 2]), .badRequest),
        json("unknown preset", animator(["preset": "nope.push"]), .invalidArgument),
    ]

    static let sizes: [MalformedCase] = [
        json("1 MB string value", ["cmd": "ping", "id": "z", "pad": .string(megabyte)], .tooLarge),
        json("1 MB id", ["cmd": "ping", "id": .string(megabyte)], .tooLarge),
        json("1 MB navigator", ["cmd": "state", "navigator": .string(megabyte)], .tooLarge),
        json("1 MB screen name", push(["screen": .string(megabyte)]), .tooLarge),
        json("1 MB key", .object(JSONObject([(key: "cmd", value: "ping"), (key: megabyte, value: 1)])), .tooLarge),
        json(
            "params past 16 KiB",
            push(["screen": ["name": "A", "params": ["b": .string(String(repeating: "p", count: 17_000))]]]),
            .tooLarge),
        json(
            "params an array of 2 000 numbers",
            push(["screen": ["name": "A", "params": .array(Array(repeating: 123_456_789, count: 2_000))]]),
            .badRequest),
    ]

    static let framing: [MalformedCase] = [
        MalformedCase(name: "empty message", frames: [[]], code: .badRequest),
        frames("two body frames", [ping, ping]),
        frames("REQ envelope without the delimiter", ["envelope", ping]),
        frames("delimiter then two bodies", ["", ping, ping]),
        frames("delimiter then an empty body", ["", ""]),
        frames("a broker's envelope, then two bodies", ["hop", "", ping, ping]),
        frames("a broker's envelope, then an empty body", ["hop", "", ""]),
        frames("ten frames", Array(repeating: ping, count: 10)),
        frames("REQ with two body frames", [ping, ping], kind: .req),
        frames("REQ with an empty body", [""], kind: .req),
        frames("REQ with garbage", ["garbage"], kind: .req),
    ]
}
