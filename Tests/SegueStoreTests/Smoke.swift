import Testing
@testable import SegueStore

@Suite struct SegueStoreTestsSmoke {
    @Test func moduleLoads() { #expect(Bool(true)) }
}
