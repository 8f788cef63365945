import Testing

@testable import SegueCore

/// The built-in styles: the in-place invariants for every style, edge and operation, and each style's
/// defining positions.
@Suite struct StyleTests {
    static let container = ContainerSize(width: 400, height: 800)

    static func isInPlace(_ view: ViewProperties) -> Bool {
        view.x == 0 && view.y == 0 && view.alpha == 1 && view.scale == 1 && view.rotation == 0
            && view.rotationY == 0 && view.mask == 1
    }

    /// No "-0" in ticks: every zero is a positive zero.
    static func hasNoNegativeZero(_ view: ViewProperties) -> Bool {
        [view.x, view.y, view.alpha, view.scale, view.rotation, view.rotationY, view.mask]
            .allSatisfy { $0 != 0 || $0.sign == .plus }
    }

    static let optionVariants = [
        StyleOptions.standard, StyleOptions(fade: true), StyleOptions(parallax: 0.5, scale: 0),
        StyleOptions(offsetX: .points(20), offsetY: .points(55)), StyleOptions(offsetX: .fraction(0.1), fade: true),
    ]

    @Test(arguments: TransitionStyle.named.map(\.style), TransitionOperation.allCases)
    func fromIsInPlaceAtStartAndToAtEnd(style: TransitionStyle, operation: TransitionOperation) {
        for edge in [nil] + Edge.allCases.map(Optional.some) {
            for options in Self.optionVariants {
                let animator = Animator(style: style, edge: edge, options: options)
                let start = animator.views(for: operation, progress: 0, fraction: 0, container: Self.container)
                let end = animator.views(for: operation, progress: 1, fraction: 1, container: nil)
                #expect(
                    Self.isInPlace(start.from), "\(style) \(operation) \(String(describing: edge)) start \(start.from)")
                #expect(Self.isInPlace(end.to), "\(style) \(operation) \(String(describing: edge)) end \(end.to)")
                for q in [0.0, 0.3, 0.5, 1.0] {
                    let views = animator.views(for: operation, progress: q, fraction: q, container: Self.container)
                    #expect(Self.hasNoNegativeZero(views.from) && Self.hasNoNegativeZero(views.to))
                    #expect(views.from.z != views.to.z)
                }
            }
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var style: TransitionStyle
        var edge: Edge?
        var operation: TransitionOperation
        var progress: Double
        var from: [String: Double]
        var to: [String: Double]
        var toAbove: Bool
        var testDescription: String { "\(style) \(operation) \(String(describing: edge)) at \(progress)" }
    }

    static func value(_ view: ViewProperties, _ key: String) -> Double {
        switch key {
        case "x": view.x
        case "y": view.y
        case "alpha": view.alpha
        case "scale": view.scale
        case "rotationY": view.rotationY
        case "mask": view.mask
        default: .nan
        }
    }

    @Test(arguments: [
        // UIKit push: to enters from the right over from, which moves 30% left.
        Case(style: .slide, operation: .push, progress: 0, from: ["x": 0], to: ["x": 1], toAbove: true),
        Case(style: .slide, operation: .push, progress: 0.5, from: ["x": -0.15], to: ["x": 0.5], toAbove: true),
        Case(style: .slide, operation: .push, progress: 1, from: ["x": -0.3], to: ["x": 0], toAbove: true),
        // UIKit pop: from leaves to the right, to comes back from 30% left, underneath.
        Case(style: .slide, operation: .pop, progress: 0, from: ["x": 0], to: ["x": -0.3], toAbove: false),
        Case(style: .slide, operation: .pop, progress: 0.5, from: ["x": 0.5], to: ["x": -0.15], toAbove: false),
        Case(style: .slide, operation: .pop, progress: 1, from: ["x": 1], to: ["x": 0], toAbove: false),
        Case(
            style: .slide, edge: .top, operation: .push, progress: 0.5, from: ["y": 0.15], to: ["y": -0.5],
            toAbove: true),
        Case(
            style: .cover, edge: .left, operation: .push, progress: 0.25, from: ["x": 0], to: ["x": -0.75],
            toAbove: true),
        Case(
            style: .cover, edge: .left, operation: .pop, progress: 0.25, from: ["x": -0.25], to: ["x": 0],
            toAbove: false),
        // Modal defaults: present covers from the bottom, dismiss slides from back down on top.
        Case(style: .cover, operation: .present, progress: 0, from: ["y": 0], to: ["y": 1], toAbove: true),
        Case(style: .cover, operation: .dismiss, progress: 0.5, from: ["y": 0.5], to: ["y": 0], toAbove: false),
        Case(style: .cover, operation: .dismiss, progress: 1, from: ["y": 1], to: ["y": 0], toAbove: false),
        Case(style: .reveal, operation: .push, progress: 0.5, from: ["x": -0.5], to: ["x": 0], toAbove: false),
        Case(style: .reveal, operation: .push, progress: 1, from: ["x": -1], to: ["x": 0], toAbove: false),
        Case(
            style: .reveal, edge: .bottom, operation: .pop, progress: 0.5, from: ["y": 0], to: ["y": -0.5],
            toAbove: true),
        // CATransition push: both move together by a full container.
        Case(
            style: .push, edge: .bottom, operation: .push, progress: 0.25, from: ["y": -0.25], to: ["y": 0.75],
            toAbove: true),
        Case(style: .push, operation: .pop, progress: 0.25, from: ["x": 0.25], to: ["x": -0.75], toAbove: false),
        Case(style: .fade, operation: .push, progress: 0.4, from: ["alpha": 1], to: ["alpha": 0.4], toAbove: true),
        Case(style: .fade, operation: .pop, progress: 0.4, from: ["alpha": 0.6], to: ["alpha": 1], toAbove: false),
        Case(
            style: .crossfade, operation: .push, progress: 0.25, from: ["alpha": 0.75], to: ["alpha": 0.25],
            toAbove: true),
        Case(
            style: .flip, operation: .push, progress: 0.25, from: ["rotationY": 45, "alpha": 1],
            to: ["rotationY": -135, "alpha": 0], toAbove: true),
        Case(
            style: .flip, operation: .push, progress: 0.5, from: ["rotationY": 90, "alpha": 0],
            to: ["rotationY": -90, "alpha": 1], toAbove: true),
        Case(
            style: .flip, edge: .left, operation: .push, progress: 0.75, from: ["rotationY": -135, "alpha": 0],
            to: ["rotationY": 45, "alpha": 1], toAbove: true),
        Case(
            style: .zoom, operation: .push, progress: 0, from: ["scale": 1], to: ["scale": 0.8, "alpha": 0],
            toAbove: true),
        Case(
            style: .zoom, operation: .push, progress: 0.5, from: ["scale": 1], to: ["scale": 0.9, "alpha": 0.5],
            toAbove: true),
        Case(
            style: .zoom, operation: .pop, progress: 0.5, from: ["scale": 0.9, "alpha": 0.5], to: ["scale": 1],
            toAbove: false),
        Case(
            style: .iris, operation: .push, progress: 0.3, from: ["mask": 1], to: ["mask": 0.3, "alpha": 1],
            toAbove: true),
        Case(style: .none, operation: .push, progress: 0.99, from: ["alpha": 1], to: ["alpha": 0], toAbove: true),
        Case(style: .none, operation: .push, progress: 1, from: ["alpha": 1], to: ["alpha": 1], toAbove: true),
    ])
    func styleTable(c: Case) {
        let views = Animator(style: c.style, edge: c.edge)
            .views(for: c.operation, progress: c.progress, fraction: c.progress, container: Self.container)
        for (key, expected) in c.from {
            #expect(abs(Self.value(views.from, key) - expected) < 1e-12, "from.\(key): \(views.from)")
        }
        for (key, expected) in c.to {
            #expect(abs(Self.value(views.to, key) - expected) < 1e-12, "to.\(key): \(views.to)")
        }
        #expect((views.to.z > views.from.z) == c.toAbove)
    }

    @Test func pointOffsetsUseTheContainerOrThePhoneDefault() {
        let animator = Animator(
            style: .cover, edge: .right, options: StyleOptions(offsetX: .points(40), offsetY: .points(55)))
        let declared = animator.views(for: .push, progress: 0, fraction: 0, container: Self.container)
        #expect(declared.to.x == 1 + 40.0 / 400)
        #expect(declared.to.y == 55.0 / 800)
        let undeclared = animator.views(for: .push, progress: 0, fraction: 0, container: nil)
        #expect(undeclared.to.x == 1 + 40.0 / 390)
        #expect(undeclared.to.y == 55.0 / 844)
    }

    @Test func fadeOptionFadesTheMovingView() {
        let cover = Animator(style: .cover, options: StyleOptions(fade: true))
        #expect(cover.views(for: .push, progress: 0.25, fraction: 0.25, container: nil).to.alpha == 0.25)
        let reveal = Animator(style: .reveal, options: StyleOptions(fade: true))
        #expect(reveal.views(for: .push, progress: 0.25, fraction: 0.25, container: nil).from.alpha == 0.75)
    }

    /// A spring's overshoot carries positions past their targets, but alpha and mask stay in [0, 1].
    @Test func overshootMovesPastTheTargetButClampsAlphaAndMask() {
        let slide = Animator(style: .slide).views(for: .push, progress: 1.1, fraction: 0.6, container: nil)
        #expect(abs(slide.to.x - -0.1) < 1e-12)
        let zoom = Animator(style: .zoom).views(for: .push, progress: 1.2, fraction: 0.6, container: nil)
        #expect(zoom.to.alpha == 1)
        #expect(zoom.to.scale > 1)
        let iris = Animator(style: .iris).views(for: .push, progress: -0.1, fraction: 0.1, container: nil)
        #expect(iris.to.mask == 0)
    }

    @Test(arguments: TransitionOperation.allCases)
    func defaultEdges(operation: TransitionOperation) {
        let expected: Edge = operation == .push || operation == .pop ? .right : .bottom
        #expect(Animator(style: .cover).resolvedEdge(for: operation) == expected)
        #expect(Animator(style: .cover, edge: .top).resolvedEdge(for: operation) == .top)
    }
}
