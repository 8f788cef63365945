import Testing
@testable import SegueDaemon

@Suite struct SegueDaemonTestsSmoke {
    @Test func moduleLoads() { #expect(Bool(true)) }
}
