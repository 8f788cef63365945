import Testing

@testable import SegueClient

/// A connection segued closed after the request went out: a request too small to be over any
/// `limits.maxMessageBytes` is not blamed on the limit (a daemon that stopped is the likely cause).
@Suite struct ClosedConnectionMessageTests {
    static let cases: [(bytes: Int, says: String, never: String)] = [
        (37, "as it does when it stops; is segued running at this endpoint?", "maxMessageBytes"),
        (1024, "as it does when it stops; is segued running at this endpoint?", "maxMessageBytes"),
        (1025, "over its limits.maxMessageBytes (this one is 1025 bytes", "is segued running"),
        (8192, "over its limits.maxMessageBytes (this one is 8192 bytes", "is segued running"),
    ]

    @Test(arguments: cases.indices)
    func theMessageNamesTheLikelyCause(index: Int) {
        let (bytes, says, never) = Self.cases[index]
        let text = SegueClientError.closedOnRequest(command: "ping", waited: .seconds(5), bytes: bytes).description
        #expect(text.hasPrefix("timeout: ping got no reply within 5 s: segued closed the connection"), "\(text)")
        #expect(text.contains(says), "\(text)")
        #expect(!text.contains(never), "\(text)")
    }
}
