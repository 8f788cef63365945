import SegueCommandLine

/// `pause`, `seek` and `resume` (docs/cli.md, "Commands", scrubbing): UIViewPropertyAnimator's pauseAnimation,
/// fractionComplete and startAnimation on the transition in flight.
extension CommandTree {
    static let scrubOwner = OptionSpec(
        "owner", value: "owner", help: "The owner the transition's gesture named, if it named one.")

    static let pause = CommandConfiguration(
        name: "pause", abstract: "Hold the animating transition where it is.",
        discussion: "Works on an animating, finishing or cancelling transition; ticks go on, unchanged, until "
            + "seek, resume, cancel or begin (which makes it interactive). Prints the fraction it is held at.",
        arguments: [ArgumentSpec("navigator", help: "The navigator's name.")],
        options: [scrubOwner] + mutation,
        examples: ["segue pause main", "segue pause main --owner pan-1"])

    static let seek = CommandConfiguration(
        name: "seek", abstract: "Move a paused transition to a fraction.",
        discussion: "By default the fraction is the progress the views show, as UIKit's scrubsLinearly: the "
            + "transition stands where its curve reaches it. With --along-curve it is the fraction of time, and "
            + "the views follow the curve.",
        arguments: [
            ArgumentSpec("navigator", help: "The navigator's name."),
            ArgumentSpec("fraction", help: "0...1."),
        ],
        options: [
            .flag("along-curve", help: "Seek in time along the animator's curve, not linearly in progress."),
            scrubOwner,
        ] + mutation,
        examples: ["segue seek main 0.5", "segue seek main 0.25 --along-curve"])

    static let resume = CommandConfiguration(
        name: "resume", abstract: "Run a paused transition on toward the end it was heading for.",
        arguments: [ArgumentSpec("navigator", help: "The navigator's name.")],
        options: [scrubOwner] + mutation + [wait],
        examples: ["segue resume main", "segue resume main --wait && echo completed"])
}
