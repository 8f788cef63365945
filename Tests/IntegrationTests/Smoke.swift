import Testing
@testable import SegueClient

@Suite struct IntegrationTestsSmoke {
    @Test func moduleLoads() { #expect(Bool(true)) }
}
