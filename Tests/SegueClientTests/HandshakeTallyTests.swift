import Testing

@testable import SegueClient

/// When a failed handshake is final, and what the silence that ends a wait is blamed on.
@Suite struct HandshakeTallyTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let curve: Bool
        /// Each event with its time in milliseconds after the start.
        let events: [(HandshakeTally.Outcome, Int)]
        /// The event (by index) whose note returned a final failure, and that failure.
        let final: (index: Int, failure: HandshakeFailure)?
        /// When the wait ends (ms after the start) and what the silence is blamed on then.
        let silenceAt: Int
        let blame: HandshakeFailure?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        .init(name: "nothing happened", curve: false, events: [], final: nil, silenceAt: 2_000, blame: nil),
        .init(
            name: "three hang-ups without keys", curve: false,
            events: [
                (.dropped(mismatch: false), 10), (.dropped(mismatch: false), 110), (.dropped(mismatch: false), 210),
            ],
            final: (2, .curveRequired), silenceAt: 210, blame: .curveRequired),
        .init(
            name: "a mechanism mismatch is final at once", curve: false, events: [(.dropped(mismatch: true), 10)],
            final: (0, .curveRequired), silenceAt: 10, blame: .curveRequired),
        .init(
            name: "a refused key is final and never goes stale", curve: true, events: [(.refused(status: 400), 10)],
            final: (0, .keyRefused(status: 400)), silenceAt: 60_000, blame: .keyRefused(status: 400)),
        .init(
            name: "a recent lone hang-up explains a short wait", curve: true, events: [(.dropped(mismatch: false), 50)],
            final: nil, silenceAt: 250, blame: .serverKeyRejected),
        .init(
            name: "a lone hang-up long before the deadline is a daemon that went away", curve: false,
            events: [(.dropped(mismatch: false), 50)], final: nil, silenceAt: 5_000, blame: nil),
        .init(
            name: "two hang-ups, then a restarted daemon stays silent", curve: true,
            events: [(.dropped(mismatch: false), 50), (.dropped(mismatch: false), 150)], final: nil, silenceAt: 651,
            blame: nil),
        .init(
            name: "a success clears earlier hang-ups", curve: false,
            events: [(.dropped(mismatch: false), 10), (.dropped(mismatch: false), 110), (.succeeded, 150)],
            final: nil, silenceAt: 200, blame: nil),
        .init(
            name: "hang-ups count from the last success", curve: false,
            events: [
                (.dropped(mismatch: false), 10), (.dropped(mismatch: false), 110), (.succeeded, 150),
                (.dropped(mismatch: false), 300), (.dropped(mismatch: false), 400),
            ],
            final: nil, silenceAt: 450, blame: .curveRequired),
        .init(
            name: "a disconnect mid-handshake is a hang-up", curve: true,
            events: [(.connected, 0), (.disconnected, 5)], final: nil, silenceAt: 100, blame: .serverKeyRejected),
        .init(
            name: "a disconnect after the handshake's outcome is not another", curve: false,
            events: [
                (.connected, 0), (.dropped(mismatch: false), 5), (.disconnected, 6), (.connected, 100),
                (.dropped(mismatch: false), 105), (.disconnected, 106),
            ],
            final: nil, silenceAt: 150, blame: .curveRequired),
        .init(
            name: "a disconnect after a success is a daemon going away", curve: false,
            events: [(.connected, 0), (.succeeded, 5), (.disconnected, 50)], final: nil, silenceAt: 100, blame: nil),
    ]

    @Test(arguments: cases)
    func folds(c: Case) {
        let start = ContinuousClock.now
        var tally = HandshakeTally(curve: c.curve)
        var final: (index: Int, failure: HandshakeFailure)?
        for (index, (outcome, at)) in c.events.enumerated() {
            if let failure = tally.note(outcome, at: start + .milliseconds(at)), final == nil {
                final = (index, failure)
            }
        }
        #expect(final?.index == c.final?.index)
        #expect(final?.failure == c.final?.failure)
        #expect(tally.blame(at: start + .milliseconds(c.silenceAt)) == c.blame)
    }

    /// A connection made and no handshake outcome since: the peer has not greeted.
    @Test(arguments: [
        ([HandshakeTally.Outcome](), false), ([.connected], true), ([.connected, .succeeded], false),
        ([.connected, .succeeded, .disconnected, .connected], true), ([.connected, .dropped(mismatch: false)], false),
        ([.connected, .refused(status: 400)], false),
    ])
    func awaitingAGreeting(events: [HandshakeTally.Outcome], awaiting: Bool) {
        var tally = HandshakeTally(curve: false)
        for event in events { _ = tally.note(event, at: .now) }
        #expect(tally.handshaking == awaiting)
    }

    /// Connections the daemon closed after their handshake (a request over its size limit, or a stop):
    /// not a hang-up mid-handshake, which is the handshake's failure.
    @Test(arguments: [
        ([HandshakeTally.Outcome](), 0), ([.connected, .disconnected], 0), ([.connected, .succeeded], 0),
        ([.connected, .succeeded, .disconnected], 1),
        ([.connected, .succeeded, .disconnected, .connected, .succeeded, .disconnected], 2),
        ([.connected, .succeeded, .disconnected, .connected, .disconnected], 1),
        ([.connected, .refused(status: 400), .disconnected], 0),
    ])
    func closedAfterAHandshake(events: [HandshakeTally.Outcome], closed: Int) {
        var tally = HandshakeTally(curve: false)
        for event in events { _ = tally.note(event, at: .now) }
        #expect(tally.closedAfterHandshake == closed)
    }

    /// Nothing listens: connects refused again and again, none made. Once one was made, refusals are
    /// a daemon restarting, waited out as silence.
    @Test(arguments: [
        ([HandshakeTally.Outcome](), false), ([.connectRetried], false), ([.connectRetried, .connectRetried], true),
        ([.connected, .connectRetried, .connectRetried, .connectRetried], false),
        ([.connectRetried, .connected, .connectRetried], false),
    ])
    func refusedConnects(events: [HandshakeTally.Outcome], refused: Bool) {
        var tally = HandshakeTally(curve: false)
        for event in events { #expect(tally.note(event, at: .now) == nil) }
        #expect(tally.connectionRefused == refused)
    }
}
