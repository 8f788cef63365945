import Testing

@testable import SegueCore

/// The canonical encoding of docs/protocol.md, "State digests", and its SHA-256, with the expected
/// values computed by Python (`json.dumps(value, separators=(",", ":"))` and `hashlib.sha256`).
@Suite struct StateDigestTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var navigator: String
        var revision: Int64
        var stack: [(String, String)]
        var modals: [(String, String)]
        var canonical: String
        var hex: String
        var testDescription: String { canonical }
    }

    static let cases: [Case] = [
        Case(
            navigator: "main", revision: 1, stack: [("s1", "Home")], modals: [],
            canonical: #"["main",1,[["s1","Home"]],[]]"#,
            hex: "32bc38d262d719326f72464c52b6c0c6fdab8edaf10ebddcd042cbfe0347103f"),
        Case(
            navigator: "main", revision: 2, stack: [("s1", "Home")], modals: [],
            canonical: #"["main",2,[["s1","Home"]],[]]"#,
            hex: "f190d748960fddd8313e9737166f1ddb18428d2af84b90d17f8df50529edf860"),
        Case(
            navigator: "main", revision: 3, stack: [("s1", "Home"), ("s2", "Detail")], modals: [],
            canonical: #"["main",3,[["s1","Home"],["s2","Detail"]],[]]"#,
            hex: "8bd993ea1776467b1d8ead129419069cf20ddd6dac54c0fb5fcf97686220dcb3"),
        Case(
            navigator: "main", revision: 4, stack: [("s1", "Home")], modals: [("s2", "Detail")],
            canonical: #"["main",4,[["s1","Home"]],[["s2","Detail"]]]"#,
            hex: "7fd60e323e52d02724d96515c67440e8d062a9bf41e58ac3421ee5a798a9c0fd"),
        Case(
            navigator: "checkout-2.b_x", revision: 12, stack: [("s1", "Home"), ("s3", "Detail"), ("s4", "Detail")],
            modals: [("s5", "Sheet"), ("s6", "Alert")],
            canonical:
                #"["checkout-2.b_x",12,[["s1","Home"],["s3","Detail"],["s4","Detail"]],[["s5","Sheet"],["s6","Alert"]]]"#,
            hex: "88965fa3bcb550510261b2fbdc8355516d9ca0a3c1bbedb48d84ba24908b90c5"),
    ]

    static func state(_ c: Case, params: JSONObject? = nil) -> NavigatorState {
        var state = NavigatorState(name: c.navigator, clock: try! FrameClock(rate: 60))
        state.status = .open
        state.revision = c.revision
        state.stack = c.stack.map { Screen(id: $0.0, name: $0.1, params: params) }
        state.modals = c.modals.map { Screen(id: $0.0, name: $0.1, params: params) }
        return state
    }

    @Test(arguments: cases)
    func canonicalEncodingAndDigestAreTheDocumentedOnes(_ c: Case) {
        let state = Self.state(c)
        let bytes = StateDigest.canonical(
            navigator: state.name, revision: state.revision, stack: state.stack, modals: state.modals)
        #expect(String(decoding: bytes, as: UTF8.self) == c.canonical)
        #expect(StateDigest.digest(of: state).hex == c.hex)
    }

    /// Screen params, the transition in flight, the queue and the frame are not part of the digest.
    @Test(arguments: cases)
    func whatIsNotHashedDoesNotChangeIt(_ c: Case) {
        var state = Self.state(c, params: ["id": 42, "title": "Ünïcode \"quoted\""])
        state.frame = 123_456
        state.nextScreenNumber = 99
        state.queue = [QueuedCommand(command: .pop(.standard), requestID: "q", transition: 7)]
        #expect(StateDigest.digest(of: state).hex == c.hex)
    }

    /// Each member of the encoding changes the digest: revision, name, ids, routes, order, and which
    /// list a screen stands in.
    enum Change: CaseIterable, Sendable {
        case revision, navigator, screenID, route, order, stackToModal

        func apply(_ s: inout NavigatorState) {
            switch self {
            case .revision: s.revision += 1
            case .navigator: s.name += "x"
            case .screenID: s.stack[0].id = "s9"
            case .route: s.stack[0].name = "Other"
            case .order: s.stack.reverse()
            case .stackToModal: s.modals.insert(s.stack.removeLast(), at: 0)
            }
        }
    }

    @Test(arguments: Change.allCases)
    func everyHashedMemberChangesTheDigest(_ change: Change) {
        let base = Self.state(Self.cases[4])
        var changed = base
        change.apply(&changed)
        #expect(StateDigest.digest(of: changed) != StateDigest.digest(of: base))
    }
}
