import Testing
@testable import SegueWire

@Suite struct SegueWireTestsSmoke {
    @Test func moduleLoads() { #expect(Bool(true)) }
}
