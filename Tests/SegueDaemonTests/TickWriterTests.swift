import SegueProtocol
import Testing

@testable import SegueCore
@testable import SegueDaemon

/// The frame loop's tick writer spells each tick's topic as `Topic` does, whatever came before it.
@Suite struct TickWriterTests {
    @Test func topicsMatchTopicAcrossTicks() {
        var writer = TickWriter()
        for name in ["main", "a", "", "ünï-navigator.with_a_longer_name", "b", "main"] {
            let tick = Tick(
                navigator: name, transition: 1, operation: .push, frame: 2, time: 3, phase: .animating,
                fraction: 0.25, progress: 0.25, revision: 4, final: false, fromScreen: "a", toScreen: "b",
                views: ViewPair(from: ViewProperties(), to: ViewProperties()))
            writer.writeTopic(tick)
            writer.writeBody(tick)
            #expect(writer.topic == Topic.tick(navigator: name).bytes)
            #expect(Array(writer.body) == tick.encoded())
        }
    }
}
