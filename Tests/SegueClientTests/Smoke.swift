import Testing
@testable import SegueClient

@Suite struct SegueClientTestsSmoke {
    @Test func moduleLoads() { #expect(Bool(true)) }
}
