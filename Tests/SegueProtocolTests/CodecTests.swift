import SegueCore
import SegueProtocol
import Testing

/// `RequestDecoder` and `Reply` without sockets: what each request decodes to, which code each bad
/// request gets (and whether its id survives), and the exact bytes of replies.
@Suite struct CodecTests {
    struct Good: Sendable, CustomTestStringConvertible {
        var text: String
        var request: Request
        var testDescription: String { text }
    }

    static func req(
        _ body: Request.Body, id: String? = nil, navigator: String? = nil, expect: Int64? = nil, owner: String? = nil
    ) -> Request {
        Request(
            id: id, navigator: navigator, envelope: CommandEnvelope(requestID: id, expect: expect, owner: owner),
            body: body)
    }

    static let good: [Good] = [
        Good(text: #"{"cmd":"ping"}"#, request: req(.ping)),
        Good(text: #"{"cmd":"ping","id":"p"}"#, request: req(.ping, id: "p")),
        Good(text: #"{"cmd":"ping","id":42}"#, request: req(.ping, id: "42")),
        Good(text: #"{"cmd":"ping","id":null,"navigator":null}"#, request: req(.ping)),
        Good(text: #"{"cmd":"ping","id":42.0}"#, request: req(.ping, id: "42")),
        Good(
            text: #"{"cmd":"state","navigator":"m","expect":null,"owner":null}"#,
            request: req(.state(at: nil), navigator: "m")),
        Good(text: #"{"cmd":"list"}"#, request: req(.list)),
        Good(text: #"{"cmd":"stats","id":"s"}"#, request: req(.stats, id: "s")),
        Good(text: #"{"cmd":"state","navigator":"m"}"#, request: req(.state(at: nil), navigator: "m")),
        Good(text: #"{"cmd":"state","navigator":"m","at":3}"#, request: req(.state(at: 3), navigator: "m")),
        Good(text: #"{"cmd":"history"}"#, request: req(.history(after: 0, limit: 1000))),
        Good(
            text: #"{"cmd":"history","navigator":"m","after":5,"limit":2}"#,
            request: req(.history(after: 5, limit: 2), navigator: "m")),
        Good(
            text: #"{"cmd":"create","navigator":"m","root":"Home"}"#,
            request: req(
                .navigation(.create(root: ScreenSpec(name: "Home"), config: NavigatorConfig())), navigator: "m")),
        Good(
            text: #"{"cmd":"push","id":"a","navigator":"m","screen":"A","expect":2}"#,
            request: req(.navigation(.push(ScreenSpec(name: "A"), .standard)), id: "a", navigator: "m", expect: 2)),
        Good(
            text: #"{"cmd":"push","navigator":"m","screen":{"name":"A","params":{"k":1}},"animated":false}"#,
            request: req(
                .navigation(.push(ScreenSpec(name: "A", params: ["k": 1]), TransitionOptions(animated: false))),
                navigator: "m")),
        Good(
            text: #"{"cmd":"pop","navigator":"m","animator":{"duration":1}}"#,
            request: req(.navigation(.pop(TransitionOptions(animator: ["duration": 1]))), navigator: "m")),
        Good(
            text: #"{"cmd":"popTo","navigator":"m","screen":"s2"}"#,
            request: req(.navigation(.popTo("s2", .standard)), navigator: "m")),
        Good(
            text: #"{"cmd":"setStack","navigator":"m","screens":["s1",{"id":"s2"},{"name":"B"}]}"#,
            request: req(
                .navigation(.setStack([.idOrName("s1"), .id("s2"), .new(ScreenSpec(name: "B"))], .standard)),
                navigator: "m")),
        Good(
            text: #"{"cmd":"begin","navigator":"m","operation":"pop","owner":"o"}"#,
            request: req(.navigation(.begin(.pop, animator: nil)), navigator: "m", owner: "o")),
        Good(
            text: #"{"cmd":"begin","navigator":"m"}"#,
            request: req(.navigation(.begin(nil, animator: nil)), navigator: "m")),
        Good(
            text: #"{"cmd":"update","navigator":"m","percent":2.5}"#,
            request: req(.navigation(.update(percent: 1, velocity: nil)), navigator: "m")),
        Good(
            text: #"{"cmd":"update","navigator":"m","percent":-1,"velocity":-3}"#,
            request: req(.navigation(.update(percent: 0, velocity: -3)), navigator: "m")),
        Good(
            text: #"{"cmd":"finish","navigator":"m"}"#,
            request: req(
                .navigation(.finish(velocity: nil, completionSpeed: 1, completionCurve: .easeInOut)),
                navigator: "m")),
        Good(
            text: #"{"cmd":"cancel","navigator":"m","completionSpeed":2,"completionCurve":"linear"}"#,
            request: req(.navigation(.cancel(completionSpeed: 2, completionCurve: .linear)), navigator: "m")),
        Good(
            text: #"{"cmd":"end","navigator":"m","percent":0.7}"#,
            request: req(.navigation(.end(percent: 0.7, velocity: nil)), navigator: "m")),
        Good(
            text: #"{"cmd":"close","navigator":"m","expect":4}"#,
            request: req(.navigation(.close), navigator: "m", expect: 4)),
    ]

    @Test(arguments: good) func decodes(_ c: Good) throws {
        var decoded = try RequestDecoder().decode(Array(c.text.utf8)).get()
        // The fingerprint has its own tests (RequestFingerprintTests); here only where it is set.
        #expect((decoded.fingerprint != nil) == (c.request.id != nil && c.request.isMutating))
        decoded.fingerprint = nil
        // So have the config members a create gave (EngineCoreRequestTests); here only where they are set.
        #expect((decoded.givenConfig != nil) == (decoded.command == "create"))
        decoded.givenConfig = nil
        #expect(decoded == c.request)
    }

    struct Bad: Sendable, CustomTestStringConvertible {
        var text: String
        var code: ErrorCode
        var id: String?
        var testDescription: String { "\(code.rawValue): \(text.prefix(60))" }
    }

    static let bad: [Bad] = [
        Bad(text: "", code: .badRequest),
        Bad(text: "nope", code: .badRequest),
        Bad(text: "[]", code: .badRequest),
        Bad(text: #"{"cmd":"ping","id":true}"#, code: .badRequest),
        Bad(text: #"{"id":"a"}"#, code: .badRequest, id: "a"),
        Bad(text: #"{"cmd":5,"id":"a"}"#, code: .badRequest, id: "a"),
        Bad(text: #"{"cmd":"fly","id":"a"}"#, code: .unknownCommand, id: "a"),
        Bad(text: #"{"cmd":"ping","id":"a","x":1}"#, code: .badRequest, id: "a"),
        Bad(text: #"{"cmd":"ping","id":"a","expect":1}"#, code: .badRequest, id: "a"),
        Bad(text: #"{"cmd":"ping","id":1.5}"#, code: .badRequest, id: nil),
        Bad(text: #"{"cmd":"state","id":"a"}"#, code: .badRequest, id: "a"),
        Bad(text: #"{"cmd":"push","id":"a","screen":"A"}"#, code: .badRequest, id: "a"),
        Bad(text: #"{"cmd":"push","id":"a","navigator":"a b","screen":"A"}"#, code: .invalidArgument, id: "a"),
        Bad(text: #"{"cmd":"push","id":"a","navigator":7,"screen":"A"}"#, code: .badRequest, id: "a"),
        Bad(
            text: #"{"cmd":"push","id":"a","navigator":"m","screen":"A","expect":-1}"#, code: .invalidArgument, id: "a"),
        Bad(text: #"{"cmd":"update","id":"a","navigator":"m","percent":"x"}"#, code: .badRequest, id: "a"),
        Bad(text: #"{"cmd":"update","id":"a","navigator":"m","percent":NaN}"#, code: .badRequest),
        Bad(text: #"{"cmd":"update","id":"a","navigator":"m","percent":1e999}"#, code: .badRequest),
        Bad(
            text: #"{"cmd":"update","id":"a","navigator":"m","percent":0.5,"owner":""}"#, code: .invalidArgument,
            id: "a"),
        Bad(text: #"{"cmd":"history","id":"a","limit":0}"#, code: .invalidArgument, id: "a"),
        Bad(text: #"{"cmd":"history","id":"a","limit":10001}"#, code: .invalidArgument, id: "a"),
        Bad(text: #"{"cmd":"state","id":"a","navigator":"m","at":-1}"#, code: .invalidArgument, id: "a"),
        Bad(text: #"{"cmd":"ping","id":""# + String(repeating: "i", count: 129) + #""}"#, code: .invalidArgument),
        Bad(text: #"{"cmd":"ping","id":""}"#, code: .invalidArgument, id: ""),
        Bad(text: #"{"cmd":"ping","pad":""# + String(repeating: "x", count: 256 * 1024 + 1) + #""}"#, code: .tooLarge),
        Bad(text: String(repeating: "[", count: 33) + String(repeating: "]", count: 33), code: .badRequest),
        Bad(
            text: #"{"cmd":"push","id":"a","navigator":"m","screen":{"name":"A","params":{"b":""#
                + String(repeating: "p", count: 16 * 1024) + #""}}}"#, code: .tooLarge, id: "a"),
    ]

    @Test(arguments: bad) func rejects(_ c: Bad) {
        guard case .failure(let failure) = RequestDecoder().decode(Array(c.text.utf8)) else {
            Issue.record("\(c.text.prefix(80)) decoded")
            return
        }
        #expect(failure.error.code == c.code, "\(failure.error.message)")
        #expect(failure.id == c.id)
        #expect(!failure.error.message.isEmpty)
    }

    @Test func limitsAreTheDecodersOwn() {
        var limits = RequestDecoder.Limits()
        limits.maxIDBytes = 4
        limits.maxHistoryLimit = 10
        limits.maxParamsBytes = 8
        limits.maxDepth = 3
        let decoder = RequestDecoder(limits: limits)
        func code(_ text: String) -> ErrorCode? {
            if case .failure(let f) = decoder.decode(Array(text.utf8)) { return f.error.code }
            return nil
        }
        #expect(code(#"{"cmd":"ping","id":"abcd"}"#) == nil)
        #expect(code(#"{"cmd":"ping","id":"abcde"}"#) == .invalidArgument)
        #expect(code(#"{"cmd":"history","limit":10}"#) == nil)
        #expect(code(#"{"cmd":"history","limit":11}"#) == .invalidArgument)
        #expect(code(#"{"cmd":"push","navigator":"m","screen":{"name":"A","params":{"k":12345}}}"#) == .tooLarge)
        #expect(code(#"{"cmd":"push","navigator":"m","screen":{"name":"A","params":{}}}"#) == nil)
        // Like every refusal, it names the navigator and says what to do instead.
        if case .failure(let f) = decoder.decode(
            Array(#"{"cmd":"present","navigator":"m","screen":{"name":"A","params":{"k":12345}}}"#.utf8))
        {
            #expect(
                f.error.message
                    == "present on navigator m: Screen A's params take 11 bytes, past the daemon's limits.maxParamsBytes of 8; "
                    + "send less in params, such as an id the frontend looks the rest up by.")
        } else {
            Issue.record("params past the limit were taken")
        }
        #expect(code(#"{"cmd":"ping","x":[[[1]]]}"#) == .badRequest)
        // A string past the limit is too large, and said so: the JSON itself is fine.
        limits.maxStringBytes = 4
        guard
            case .failure(let long) = RequestDecoder(limits: limits).decode(Array(#"{"cmd":"ping","x":"abcde"}"#.utf8))
        else {
            Issue.record("a 5-byte string passed a 4-byte limit")
            return
        }
        #expect(long.error.code == .tooLarge)
        // Well-formed JSON: the message does not call it invalid.
        #expect(
            long.error.message == "The request is too large: at byte 18, string longer than 4 bytes.",
            "\(long.error.message)")
    }

    @Test func requestKnowsWhetherItMutates() throws {
        let push = try RequestDecoder().decode(Array(#"{"cmd":"push","navigator":"m","screen":"A"}"#.utf8)).get()
        #expect(push.isMutating)
        #expect(push.command == "push")
        for cmd in Request.readCommands where cmd != "state" {
            let r = try RequestDecoder().decode(Array(#"{"cmd":"\#(cmd)"}"#.utf8)).get()
            #expect(!r.isMutating)
            #expect(r.command == cmd)
        }
        #expect(Set(Request.allCommands).count == 22)
    }

    @Test func okRepliesPutOkAndIDFirst() {
        #expect(Reply.ok(id: nil).serialized() == #"{"ok":true,"id":null}"#)
        #expect(
            Reply.ok(id: "x", ["revision": 3, "seq": 9]).serialized() == #"{"ok":true,"id":"x","revision":3,"seq":9}"#)
    }

    @Test func errorRepliesCarryCodeMessageAndSortedDetails() {
        let error = WireError(.conflict, "Navigator m is at revision 3.", details: ["revision": 3, "expected": 1])
        #expect(
            Reply.error(id: "x", error).serialized()
                == #"{"ok":false,"id":"x","error":{"code":"conflict","message":"Navigator m is at revision 3.","expected":1,"revision":3}}"#
        )
        #expect(
            Reply.error(id: nil, .badRequest, "Say \"hi\".").serialized()
                == #"{"ok":false,"id":null,"error":{"code":"bad_request","message":"Say \"hi\"."}}"#)
        let core = CoreError(.busy, "b", details: ["transition": 2])
        #expect(WireError(core) == WireError(.busy, "b", details: ["transition": 2]))
        #expect(WireError(core).description == "busy: b")
    }

    @Test(arguments: ErrorCode.allCases) func everyCodeIsSnakeCaseOnTheWire(_ code: ErrorCode) {
        let text = Reply.error(id: nil, code, "m").serialized()
        #expect(text.contains(#""code":"\#(code.rawValue)""#))
        #expect(code.rawValue.allSatisfy { $0.isLowercase || $0 == "_" })
    }
}

/// An unknown member is answered with the members the command does take, so a typo shows its fix.
@Suite struct UnknownMemberMessageTests {
    @Test(arguments: [
        (
            #"{"cmd":"push","navigator":"m","screen":"A","colour":1}"#,
            #"push on navigator m: Unknown field "colour" in request. Known: cmd, id, navigator, expect, owner, screen, animated, animator."#
        ),
        (#"{"cmd":"history","limt":3}"#, #"Unknown field "limt" in request. Known: cmd, id, navigator, after, limit."#),
        // ping, list and stats refuse a navigator: it is not among what they take.
        (#"{"cmd":"ping","colour":1}"#, #"Unknown field "colour" in request. Known: cmd, id."#),
        (#"{"cmd":"stats","navigator":null,"colour":1}"#, #"Unknown field "colour" in request. Known: cmd, id."#),
        (
            #"{"cmd":"update","navigator":"m","percent":0.5,"velocty":1}"#,
            #"update on navigator m: Unknown field "velocty" in request. Known: cmd, id, navigator, expect, owner, percent, velocity, touch, edge, time."#
        ),
        // Tens of thousands of unknown members make a sentence of eight and a count.
        (
            #"{"cmd":"ping","# + (0..<50_000).map { #""k\#($0)":1"# }.joined(separator: ",") + "}",
            #"Unknown fields "k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7" and 49992 more in request. Known: cmd, id."#
        ),
    ])
    func theMessageListsTheKnownMembers(_ text: String, _ message: String) throws {
        guard case .failure(let failure) = RequestDecoder().decode(Array(text.utf8)) else {
            Issue.record("\(text) decoded")
            return
        }
        #expect(failure.error.code == .badRequest)
        #expect(failure.error.message == message)
    }
}
