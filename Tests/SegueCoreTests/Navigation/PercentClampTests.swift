import Testing

@testable import SegueCore

/// `update` and `end` clamp `percent` into [0, 1], and -0 is 0: the reply echoes the applied value.
@Suite struct PercentClampTests {
    @Test(arguments: [(-0.0, 0.0), (-1, 0), (0.4, 0.4), (2, 1), (1e300, 1)] as [(Double, Double)])
    func percentIsClampedAndUnsigned(given: Double, applied: Double) throws {
        let update = try NavigationCommand(
            name: "update", arguments: ["cmd": "update", "navigator": "m", "percent": .double(given)])
        guard case .update(let percent, _, _) = update else {
            Issue.record("\(update)")
            return
        }
        #expect(percent == applied && percent.sign == .plus, "\(given) → \(percent)")
        let end = try NavigationCommand(
            name: "end", arguments: ["cmd": "end", "navigator": "m", "percent": .double(given)])
        guard case .end(let endPercent?, _, _, _) = end else {
            Issue.record("\(end)")
            return
        }
        #expect(endPercent == applied && endPercent.sign == .plus, "\(given) → \(endPercent)")
    }
}
