import SegueCore
import SegueProtocol
import Testing

/// One rule for the code of a bad value, wherever it sits in a request: the decoder, which reads the
/// envelope and hands the arguments to SegueCore, answers every row of `BadValueCase.all` with its
/// code, and a message that names the value's path, what was expected and what was got.
@Suite struct BadValueCodeTests {
    @Test(arguments: BadValueCase.all) func rejects(_ c: BadValueCase) throws {
        guard case .failure(let failure) = RequestDecoder().decode(Array(c.request.utf8)) else {
            Issue.record("\(c.request.prefix(120)) decoded")
            return
        }
        #expect(failure.error.code == c.code, "\(failure.error.message)")
        #expect(failure.error.message.contains(c.fragment), "\(failure.error.message)")
        // A command on one navigator names it first, as every refusal of one does.
        if let object = try JSON.parse(Array(c.request.utf8)).objectValue,
            case .string(let cmd)? = object["cmd"], case .string(let navigator)? = object["navigator"],
            NavigatorName.isValid(navigator), !["ping", "list", "stats"].contains(cmd), c.code != .unknownCommand
        {
            #expect(failure.error.message.hasPrefix("\(cmd) on navigator \(navigator): "), "\(failure.error.message)")
        } else {
            #expect(!failure.error.message.contains(" on navigator "), "\(failure.error.message)")
        }
    }

    /// Every member with a range or a list of allowed values has rows of both kinds, so the table
    /// shows the rule for each rather than for a sample.
    @Test func everyMemberHasAWrongTypeAndANotAllowedRow() {
        var codes: [String: Set<ErrorCode>] = [:]
        for c in BadValueCase.all { codes[c.member, default: []].insert(c.code) }
        for (member, seen) in codes.sorted(by: { $0.key < $1.key }) {
            #expect(seen.contains(.badRequest), "\(member) has no bad_request row")
            if BadValueCase.typeOnly.contains(member) {
                #expect(seen == [.badRequest], "\(member) is listed as type-only")
            } else {
                #expect(
                    seen.contains(.invalidArgument) || seen.contains(.unknownCommand),
                    "\(member) has no invalid_argument row")
            }
        }
        #expect(BadValueCase.typeOnly.isSubset(of: Set(codes.keys)))
    }
}
