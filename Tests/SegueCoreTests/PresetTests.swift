import Testing

@testable import SegueCore

/// The seed gallery's key frames: each preset at its start, middle and end.
@Suite struct PresetTests {
    static let container = ContainerSize(width: 390, height: 844)

    static func views(_ name: String, _ operation: TransitionOperation, _ progress: Double) throws -> ViewPair {
        let animator = try #require(Animator.preset(named: name))
        return animator.views(for: operation, progress: progress, fraction: progress, container: container)
    }

    static let operations: [String: TransitionOperation] = [
        "simpleOver.push": .push, "simpleOver.pop": .pop, "fade.push": .push, "fade.pop": .pop,
        "slideFromBottom.push": .push, "slideFromBottom.pop": .pop, "catransition.pushFromBottom": .push,
        "rotate.push": .push, "rotate.pop": .pop, "logoReveal.push": .push, "logoReveal.pop": .pop,
    ]

    @Test func everyPresetIsListedAndTested() {
        #expect(Set(Animator.presetNames) == Set(Self.operations.keys))
        #expect(Animator.presetNames.count == Self.operations.count)
        #expect(Animator.preset(named: "nope") == nil)
    }

    @Test(arguments: Animator.presetNames)
    func presetsKeepTheInPlaceInvariants(name: String) throws {
        let operation = try #require(Self.operations[name])
        #expect(StyleTests.isInPlace(try Self.views(name, operation, 0).from))
        #expect(StyleTests.isInPlace(try Self.views(name, operation, 1).to))
        #expect(Animator.preset(named: name)?.curve.intrinsicDuration == nil)
    }

    @Test func simpleOverPush() throws {
        let start = try Self.views("simpleOver.push", .push, 0)
        #expect(start.to.x == 1 && start.to.y == 55 / 844)
        #expect(start.to.z > start.from.z)
        let middle = try Self.views("simpleOver.push", .push, 0.5)
        #expect(middle.to.x == 0.5 && middle.to.y == 0.5 * 55 / 844 && StyleTests.isInPlace(middle.from))
        let end = try Self.views("simpleOver.push", .push, 1)
        #expect(end.to.x == 0 && end.to.y == 0)
    }

    @Test func simpleOverPop() throws {
        let middle = try Self.views("simpleOver.pop", .pop, 0.5)
        #expect(middle.from.x == 0.5 && middle.from.y == 0.5 * 55 / 844 && middle.from.z > middle.to.z)
        #expect(StyleTests.isInPlace(middle.to))
        let end = try Self.views("simpleOver.pop", .pop, 1)
        #expect(end.from.x == 1 && end.from.y == 55 / 844)
    }

    @Test func fadePushAndPop() throws {
        let push = try Self.views("fade.push", .push, 0)
        #expect(push.to.alpha == 0 && push.to.z > push.from.z)
        #expect(try Self.views("fade.push", .push, 0.5).to.alpha == 0.5)
        for progress in [0.0, 0.5, 1.0] {
            let pop = try Self.views("fade.pop", .pop, progress)
            #expect(pop.from.alpha == 1 - progress && pop.from.z > pop.to.z && pop.to.alpha == 1)
        }
    }

    @Test func slideFromBottom() throws {
        #expect(try Self.views("slideFromBottom.push", .push, 0).to.y == 1)
        #expect(try Self.views("slideFromBottom.push", .push, 0.5).to.y == 0.5)
        let pop = try Self.views("slideFromBottom.pop", .pop, 0.5)
        #expect(pop.from.y == 0.5 && pop.from.z > pop.to.z && pop.to.y == 0)
        #expect(try Self.views("slideFromBottom.pop", .pop, 1).from.y == 1)
    }

    @Test func caTransitionPushFromBottomMovesBothUp() throws {
        let start = try Self.views("catransition.pushFromBottom", .push, 0)
        #expect(start.to.y == 1 && start.from.y == 0)
        let middle = try Self.views("catransition.pushFromBottom", .push, 0.5)
        #expect(middle.to.y == 0.5 && middle.from.y == -0.5)
        let end = try Self.views("catransition.pushFromBottom", .push, 1)
        #expect(end.from.y == -1 && end.to.y == 0)
    }

    @Test func rotatePushSwingsDownOnASpring() throws {
        let animator = try #require(Animator.preset(named: "rotate.push"))
        let start = try Self.views("rotate.push", .push, 0)
        #expect(start.to.rotation == -90 && start.to.anchorX == 0 && start.to.anchorY == 0 && start.to.z > start.from.z)
        // Driven through its curve: it overshoots past 0° before settling exactly at 0°.
        let rotations = (0...100).map { step in
            let fraction = Double(step) / 100
            let progress = animator.curve.progress(atFraction: fraction, duration: animator.effectiveDuration)
            return animator.views(for: .push, progress: progress, fraction: fraction, container: nil).to.rotation
        }
        #expect(rotations.max()! > 5)
        #expect(rotations.last == 0)
        if case .spring(.dampingRatio(let ratio, _)) = animator.curve {
            #expect(ratio >= 0.5 && ratio <= 0.6)
        } else {
            Issue.record("rotate.push must use a damping-ratio spring")
        }
    }

    @Test func rotatePopIsKeyframed() throws {
        let dip = try Self.views("rotate.pop", .pop, 0.25)
        #expect(dip.from.rotation == 8 && dip.from.alpha == 1 && dip.from.z > dip.to.z)
        let late = try Self.views("rotate.pop", .pop, 0.85)
        #expect(late.from.rotation < -40 && abs(late.from.alpha - 0.5) < 1e-12)
        let end = try Self.views("rotate.pop", .pop, 1)
        #expect(end.from.rotation == -90 && end.from.alpha == 0)
    }

    @Test func logoRevealPushGrowsTheIrisWhileFadingIn() throws {
        let start = try Self.views("logoReveal.push", .push, 0)
        #expect(start.to.mask == 0 && start.to.alpha == 0 && start.to.z > start.from.z)
        let middle = try Self.views("logoReveal.push", .push, 0.5)
        #expect(middle.to.mask == 0.5 && middle.to.alpha == 0.5)
    }

    @Test func logoRevealPopShrinksTheTopView() throws {
        let middle = try Self.views("logoReveal.pop", .pop, 0.5)
        #expect(middle.from.scale == 0.5 && middle.from.alpha == 0.5 && middle.from.z > middle.to.z)
        let end = try Self.views("logoReveal.pop", .pop, 1)
        #expect(end.from.scale == 0 && end.from.alpha == 0)
    }
}
