import Testing
@testable import SegueCore

@Suite struct SegueCoreTestsSmoke {
    @Test func moduleLoads() { #expect(Bool(true)) }
}
