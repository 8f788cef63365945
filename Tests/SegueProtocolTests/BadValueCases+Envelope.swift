import SegueCore
import SegueProtocol

/// Envelope members and the arguments of read commands.
extension BadValueCase {
    static let longID = String(repeating: "i", count: 129)

    static let envelope: [BadValueCase] = [
        .init("id", #"{"cmd":"ping","id":true}"#, .badRequest, "id must be a string or an integer; got true."),
        .init("id", #"{"cmd":"ping","id":1.5}"#, .badRequest, "id must be a string or an integer; got 1.5."),
        .init(
            "id", #"{"cmd":"ping","id":1180591620717411303424}"#, .invalidArgument,
            "id must be a string or an integer that fits in 64 bits; got 1.1805916207174113e+21."),
        .init(
            "id", #"{"cmd":"ping","id":{"a":1}}"#, .badRequest,
            #"id must be a string or an integer; got an object with "a"."#),
        .init("id", #"{"cmd":"ping","id":""}"#, .invalidArgument, "id must be 1 to 128 bytes; got 0 bytes."),
        .init(
            "id", #"{"cmd":"ping","id":"\#(longID)"}"#, .invalidArgument, "id must be 1 to 128 bytes; got 129 bytes."),
        .init("cmd", #"{"cmd":5}"#, .badRequest, "cmd must be a string; got 5."),
        .init("cmd", #"{"cmd":["ping"]}"#, .badRequest, "cmd must be a string; got an array of 1 value."),
        .init("cmd", #"{"id":"a"}"#, .badRequest, #"cmd is required: the command, e.g. {"cmd": "ping"}."#),
        .init("cmd", #"{"cmd":"fly"}"#, .unknownCommand, #"Unknown command "fly"; known: ping"#),
        .init("navigator", #"{"cmd":"state","navigator":7}"#, .badRequest, "navigator must be a string; got 7."),
        .init(
            "navigator", #"{"cmd":"state","navigator":"a b"}"#, .invalidArgument,
            #"navigator must be a navigator name matching [A-Za-z0-9._-]{1,64}; got "a b"."#),
        .init(
            "navigator", #"{"cmd":"push","screen":"A"}"#, .badRequest,
            "navigator is required: push needs the name of the navigator to act on."),
        .init(
            "navigator", #"{"cmd":"list","navigator":"main"}"#, .badRequest,
            "list does not take navigator; it covers every navigator (state and history read one)."),
        .init(
            "navigator", #"{"cmd":"ping","navigator":"main"}"#, .badRequest,
            "ping does not take navigator; it covers every navigator (state and history read one)."),
        .init("expect", nav("close", #""expect":"1""#), .badRequest, #"expect must be an integer; got "1"."#),
        .init("expect", nav("close", #""expect":1.5"#), .badRequest, "expect must be an integer; got 1.5."),
        .init("expect", nav("close", #""expect":-1"#), .invalidArgument, "expect must be 0 or more; got -1."),
        .init(
            "expect", nav("close", #""expect":1e20"#), .invalidArgument,
            "expect must be an integer that fits in 64 bits; got 1e+20."),
        .init("owner", nav("update", #""percent":0.5,"owner":7"#), .badRequest, "owner must be a string; got 7."),
        .init(
            "owner", nav("update", #""percent":0.5,"owner":"""#), .invalidArgument,
            "owner must be 1 to 128 bytes; got 0 bytes."),
        .init(
            "owner", nav("update", #""percent":0.5,"owner":"\#(longID)""#), .invalidArgument,
            "owner must be 1 to 128 bytes; got 129 bytes."),
        .init(
            "unknown member", nav("push", #""screen":"A","colour":"red""#), .badRequest,
            #"Unknown field "colour" in request."#),
    ]

    static let reads: [BadValueCase] = [
        .init("at", nav("state", #""at":"now""#), .badRequest, #"at must be an integer; got "now"."#),
        .init("at", nav("state", #""at":-1"#), .invalidArgument, "at must be 0 or more; got -1."),
        .init("after", #"{"cmd":"history","after":"0"}"#, .badRequest, #"after must be an integer; got "0"."#),
        .init("after", #"{"cmd":"history","after":-1}"#, .invalidArgument, "after must be 0 or more; got -1."),
        .init("limit", #"{"cmd":"history","limit":1.5}"#, .badRequest, "limit must be an integer; got 1.5."),
        .init("limit", #"{"cmd":"history","limit":0}"#, .invalidArgument, "limit must be in [1, 10000]; got 0."),
        .init(
            "limit", #"{"cmd":"history","limit":10001}"#, .invalidArgument, "limit must be in [1, 10000]; got 10001."),
    ]
}
