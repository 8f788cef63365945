import SegueCore
import SegueProtocol

/// Animators, their curves and springs, keyframes and `create`'s animator rules: the same rule as for
/// every other member, at any depth.
extension BadValueCase {
    static let presets =
        "simpleOver.push, simpleOver.pop, fade.push, fade.pop, slideFromBottom.push, slideFromBottom.pop, "
        + "catransition.pushFromBottom, rotate.push, rotate.pop, logoReveal.push, logoReveal.pop"
    static let styles = "slide, cover, reveal, push, fade, crossfade, flip, zoom, iris, none, keyframes"

    static let animators: [BadValueCase] = [
        .init("animator", animator(#""fast""#), .badRequest, #"animator must be an object; got "fast"."#),
        .init("animator", nav("begin", #""animator":5"#), .badRequest, "animator must be an object; got 5."),
        .init(
            "unknown member", animator(#"{"speed":2}"#), .badRequest,
            #"animator has unknown key "speed"; allowed keys are preset, style, edge"#),
        .init("animator.preset", animator(#"{"preset":5}"#), .badRequest, "animator.preset must be a string; got 5."),
        .init(
            "animator.preset", animator(#"{"preset":"wobble"}"#), .invalidArgument,
            #"animator.preset must be one of \#(presets); got "wobble"."#),
        .init("animator.style", animator(#"{"style":3}"#), .badRequest, "animator.style must be a string; got 3."),
        .init(
            "animator.style", animator(#"{"style":"spin"}"#), .invalidArgument,
            #"animator.style must be one of \#(styles); got "spin"."#),
        .init(
            "animator.edge", animator(#"{"edge":5}"#), .badRequest,
            "animator.edge must be an edge name (right, left, top, bottom) or null; got 5."),
        .init(
            "animator.edge", animator(#"{"edge":"north"}"#), .invalidArgument,
            #"animator.edge must be one of right, left, top, bottom or null; got "north"."#),
        .init(
            "animator.duration", animator(#"{"duration":"1"}"#), .badRequest,
            #"animator.duration must be a number; got "1"."#),
        .init(
            "animator.duration", animator(#"{"duration":null}"#), .badRequest,
            "animator.duration must be a number; got null."),
        .init(
            "animator.duration", animator(#"{"duration":0}"#), .invalidArgument,
            "animator.duration must be in (0, 60] seconds; got 0."),
        .init(
            "animator.duration", animator(#"{"duration":1e300}"#), .invalidArgument,
            "animator.duration must be in (0, 60] seconds; got 1e+300."),
        .init(
            "animator.parallax", animator(#"{"parallax":"a"}"#), .badRequest,
            #"animator.parallax must be a number; got "a"."#),
        .init(
            "animator.parallax", animator(#"{"parallax":2}"#), .invalidArgument,
            "animator.parallax must be in [0, 1]; got 2."),
        .init(
            "animator.scale", animator(#"{"scale":true}"#), .badRequest, "animator.scale must be a number; got true."),
        .init(
            "animator.scale", animator(#"{"scale":11}"#), .invalidArgument, "animator.scale must be in [0, 10]; got 11."
        ),
        .init("animator.fade", animator(#"{"fade":1}"#), .badRequest, "animator.fade must be true or false; got 1."),
        .init("animator.offset", animator(#"{"offset":5}"#), .badRequest, "animator.offset must be an object; got 5."),
        .init(
            "unknown member", animator(#"{"offset":{"z":1}}"#), .badRequest,
            #"animator.offset has unknown key "z"; allowed keys are x, y."#),
        .init(
            "animator.offset.x", animator(#"{"offset":{"x":"55pt"}}"#), .badRequest,
            #"animator.offset.x must be a number or {"points": n}; got "55pt"."#),
        .init(
            "animator.offset.x", animator(#"{"offset":{"x":-1e300}}"#), .invalidArgument,
            "animator.offset.x must be in [-1000, 1000]; got -1e+300."),
        .init(
            "animator.offset.x", create(#""animators":[{"animator":{"offset":{"y":1001}}}]"#), .invalidArgument,
            "animators[0].animator.offset.y must be in [-1000, 1000]; got 1001."),
        .init(
            "animator.offset.y.points", animator(#"{"offset":{"y":{"points":"a"}}}"#), .badRequest,
            #"animator.offset.y.points must be a number; got "a"."#),
        .init(
            "animator.offset.y.points", animator(#"{"offset":{"y":{}}}"#), .badRequest,
            "animator.offset.y.points is required: a number in [-100000, 100000]."),
        .init(
            "animator.offset.y.points", animator(#"{"offset":{"y":{"points":1e6}}}"#), .invalidArgument,
            "animator.offset.y.points must be in [-100000, 100000]; got 1000000."),
    ]

    static let curves: [BadValueCase] = [
        .init(
            "animator.curve", curve("3"), .badRequest,
            "animator.curve must be a curve name, \(curveForms); got 3."),
        .init(
            "animator.curve", curve("[0,0,1,1]"), .badRequest,
            "animator.curve must be a curve name, \(curveForms); got an array of 4 values."),
        .init(
            "animator.curve", curve("{}"), .badRequest,
            "animator.curve must be a curve name, \(curveForms); got an empty object."),
        .init(
            "animator.curve", curve(#""bouncy""#), .invalidArgument,
            #"animator.curve must be one of linear, easeIn, easeOut, easeInOut, default, \#(curveForms); got "bouncy"."#
        ),
        .init(
            "animator.curve.bezier", curve(#"{"bezier":"x"}"#), .badRequest,
            #"animator.curve.bezier must be an array of four numbers [x1, y1, x2, y2]; got "x"."#),
        .init(
            "animator.curve.bezier", curve(#"{"bezier":[0,0,1]}"#), .badRequest,
            "animator.curve.bezier must be an array of four numbers [x1, y1, x2, y2]; got an array of 3 values."),
        .init(
            "animator.curve.bezier[i]", curve(#"{"bezier":[0.5,"a",0.5,1]}"#), .badRequest,
            #"animator.curve.bezier[1] must be a number; got "a"."#),
        .init(
            "animator.curve.bezier[i]", curve(#"{"bezier":[null,0,1,1]}"#), .badRequest,
            "animator.curve.bezier[0] must be a number; got null."),
        .init(
            "animator.curve.bezier[i]", curve(#"{"bezier":[1.5,0,0.5,1]}"#), .invalidArgument,
            "animator.curve.bezier[0] must be in [0, 1]; got 1.5."),
        .init(
            "animator.curve.bezier[i]", curve(#"{"bezier":[0,11,1,1]}"#), .invalidArgument,
            "animator.curve.bezier[1] must be in [-10, 10]; got 11."),
        .init(
            "animator.curve.spring", curve(#"{"spring":"x"}"#), .badRequest,
            #"animator.curve.spring must be an object; got "x"."#),
        .init(
            "animator.curve.spring", curve(#"{"spring":{}}"#), .badRequest,
            "animator.curve.spring must give dampingRatio (and initialVelocity), mass, stiffness and damping (and "
                + "initialVelocity), or response and dampingFraction; got an empty object."),
        .init(
            "unknown member", curve(#"{"spring":{"dampingRatio":0.5,"mass":1}}"#), .badRequest,
            #"animator.curve.spring has unknown key "mass"; allowed keys are dampingRatio, initialVelocity."#),
        .init(
            "animator.curve.spring.dampingRatio", curve(#"{"spring":{"dampingRatio":"a"}}"#), .badRequest,
            #"animator.curve.spring.dampingRatio must be a number; got "a"."#),
        .init(
            "animator.curve.spring.dampingRatio", curve(#"{"spring":{"dampingRatio":0}}"#), .invalidArgument,
            "animator.curve.spring.dampingRatio must be in [0.01, 10]; got 0."),
        .init(
            "animator.curve.spring.initialVelocity",
            curve(#"{"spring":{"dampingRatio":0.5,"initialVelocity":"a"}}"#), .badRequest,
            #"animator.curve.spring.initialVelocity must be a number; got "a"."#),
        .init(
            "animator.curve.spring.initialVelocity", curve(#"{"spring":{"dampingRatio":0.5,"initialVelocity":2000}}"#),
            .invalidArgument, "animator.curve.spring.initialVelocity must be in [-1000, 1000]; got 2000."),
        .init(
            "animator.curve.spring.mass", curve(#"{"spring":{"mass":"a","stiffness":100,"damping":10}}"#),
            .badRequest, #"animator.curve.spring.mass must be a number; got "a"."#),
        .init(
            "animator.curve.spring.mass", curve(#"{"spring":{"mass":0,"stiffness":100,"damping":10}}"#),
            .invalidArgument, "animator.curve.spring.mass must be in (0, 1000000000]; got 0."),
        .init(
            "animator.curve.spring.stiffness", curve(#"{"spring":{"mass":1,"stiffness":[],"damping":10}}"#),
            .badRequest, "animator.curve.spring.stiffness must be a number; got an empty array."),
        .init(
            "animator.curve.spring.stiffness", curve(#"{"spring":{"mass":1,"stiffness":-100,"damping":10}}"#),
            .invalidArgument, "animator.curve.spring.stiffness must be in (0, 1000000000]; got -100."),
        .init(
            "animator.curve.spring.damping", curve(#"{"spring":{"mass":1,"stiffness":100}}"#), .badRequest,
            "animator.curve.spring.damping is required: a mass/stiffness/damping spring needs all three"),
        .init(
            "animator.curve.spring.damping", curve(#"{"spring":{"mass":1,"stiffness":100,"damping":0.1}}"#),
            .invalidArgument, "animator.curve.spring has damping ratio damping/(2·√(mass·stiffness)) = 0.005"),
        .init(
            "animator.curve.spring.damping", curve(#"{"spring":{"mass":100,"stiffness":1,"damping":2}}"#),
            .invalidArgument, "animator.curve.spring settles after 691.3 s, more than the 60 s limit"),
        .init(
            "animator.curve.spring.response", curve(#"{"spring":{"response":"a","dampingFraction":1}}"#),
            .badRequest, #"animator.curve.spring.response must be a number; got "a"."#),
        .init(
            "animator.curve.spring.response", curve(#"{"spring":{"response":0,"dampingFraction":1}}"#),
            .invalidArgument, "animator.curve.spring.response must be in (0, 60]; got 0."),
        .init(
            "animator.curve.spring.response", curve(#"{"spring":{"response":5e-324,"dampingFraction":0.01}}"#),
            .invalidArgument,
            "animator.curve.spring.response 5e-324 is too small: its stiffness (2π/response)² is not a finite number."),
        .init(
            "animator.curve.spring.dampingFraction", curve(#"{"spring":{"response":0.5}}"#), .badRequest,
            "animator.curve.spring.dampingFraction is required: a number in [0.01, 10], with response."),
        .init(
            "animator.curve.spring.dampingFraction", curve(#"{"spring":{"response":0.5,"dampingFraction":20}}"#),
            .invalidArgument, "animator.curve.spring.dampingFraction must be in [0.01, 10]; got 20."),
    ]

    static let keyframes: [BadValueCase] = [
        .init(
            "animator.keyframes", animator(#"{"keyframes":5}"#), .badRequest,
            "animator.keyframes must be an object; got 5."),
        .init(
            "animator.keyframes", animator(#"{"style":"keyframes"}"#), .badRequest,
            #"animator.keyframes is required: style "keyframes" needs its tracks."#),
        .init(
            "animator.keyframes", animator(#"{"style":"fade","keyframes":{}}"#), .badRequest,
            #"animator.keyframes is only allowed with style "keyframes", not "fade"."#),
        .init(
            "animator.keyframes.from", animator(#"{"keyframes":{"from":5}}"#), .badRequest,
            "animator.keyframes.from must be an object; got 5."),
        .init(
            "animator.keyframes.from.z", animator(#"{"keyframes":{"from":{"z":"a"}}}"#), .badRequest,
            #"animator.keyframes.from.z must be an integer; got "a"."#),
        .init(
            "animator.keyframes.from.z", animator(#"{"keyframes":{"from":{"z":0.5}}}"#), .badRequest,
            "animator.keyframes.from.z must be an integer; got 0.5."),
        .init(
            "animator.keyframes.from.z", animator(#"{"keyframes":{"from":{"z":2000}}}"#), .invalidArgument,
            "animator.keyframes.from.z must be in [-1000, 1000]; got 2000."),
        .init(
            "animator.keyframes.from.anchor", animator(#"{"keyframes":{"from":{"anchor":[0]}}}"#), .badRequest,
            "animator.keyframes.from.anchor must be [x, y], two numbers (unit square); got an array of 1 value."),
        .init(
            "animator.keyframes.from.anchor", animator(#"{"keyframes":{"from":{"anchor":[0,"a"]}}}"#), .badRequest,
            #"animator.keyframes.from.anchor[1] must be a number; got "a"."#),
        .init(
            "animator.keyframes.to.tracks", tracks("5"), .badRequest,
            "animator.keyframes.to.tracks must be an object; got 5."),
        .init(
            "unknown member", tracks(#"{"spin":[]}"#), .badRequest,
            #"animator.keyframes.to.tracks has unknown key "spin"; allowed keys are x, y, alpha"#),
        .init(
            "animator.keyframes.to.tracks.x", tracks(#"{"x":"a"}"#), .badRequest,
            #"animator.keyframes.to.tracks.x must be an array of 1 to 64 keyframes; got "a"."#),
        .init(
            "animator.keyframes.to.tracks.x", tracks(#"{"x":[]}"#), .invalidArgument,
            "animator.keyframes.to.tracks.x must be an array of 1 to 64 keyframes; got an empty array."),
        .init(
            "animator.keyframes.to.tracks.x", tracks(#"{"x":["# + keys65 + "]}"), .invalidArgument,
            "animator.keyframes.to.tracks.x must be an array of 1 to 64 keyframes; got an array of 65 values."),
        .init(
            "animator.keyframes.to.tracks.x[i]", tracks(#"{"x":[5]}"#), .badRequest,
            "animator.keyframes.to.tracks.x[0] must be an object; got 5."),
        .init(
            "unknown member", tracks(#"{"x":[{"time":0,"value":0,"ease":1}]}"#), .badRequest,
            #"animator.keyframes.to.tracks.x[0] has unknown key "ease"; allowed keys are time, value, curve."#),
        .init(
            "animator.keyframes.to.tracks.x[i].time", tracks(#"{"x":[{"time":"0","value":0}]}"#), .badRequest,
            #"animator.keyframes.to.tracks.x[0].time must be a number; got "0"."#),
        .init(
            "animator.keyframes.to.tracks.x[i].time", tracks(#"{"x":[{"value":0}]}"#), .badRequest,
            "animator.keyframes.to.tracks.x[0].time is required: a number in [0, 1]."),
        .init(
            "animator.keyframes.to.tracks.x[i].time", tracks(#"{"x":[{"time":1.5,"value":0}]}"#), .invalidArgument,
            "animator.keyframes.to.tracks.x[0].time must be in [0, 1]; got 1.5."),
        .init(
            "animator.keyframes.to.tracks.x[i].time",
            tracks(#"{"x":[{"time":0.5,"value":0},{"time":0.2,"value":1}]}"#), .invalidArgument,
            "animator.keyframes.to.tracks.x[1].time must not be before the previous key's (0.5); got 0.2."),
        .init(
            "animator.keyframes.to.tracks.x[i].value", tracks(#"{"x":[{"time":0}]}"#), .badRequest,
            #"animator.keyframes.to.tracks.x[0].value is required: a number, or {"points": n} for x and y."#),
        .init(
            "animator.keyframes.to.tracks.x[i].value", tracks(#"{"x":[{"time":0,"value":"a"}]}"#), .badRequest,
            #"animator.keyframes.to.tracks.x[0].value must be a number or {"points": n}; got "a"."#),
        .init(
            "animator.keyframes.to.tracks.x[i].value", tracks(#"{"alpha":[{"time":0,"value":{"points":1}}]}"#),
            .badRequest,
            #"animator.keyframes.to.tracks.alpha[0].value must be a number ({"points": n} is only for x and y); got an object with "points"."#
        ),
        .init(
            "animator.keyframes.to.tracks.x[i].value", tracks(#"{"x":[{"time":0,"value":{"points":1e6}}]}"#),
            .invalidArgument,
            "animator.keyframes.to.tracks.x[0].value.points must be in [-100000, 100000]; got 1000000."),
        .init(
            "animator.keyframes.to.tracks.x[i].curve", tracks(#"{"x":[{"time":0,"value":0,"curve":5}]}"#),
            .badRequest, "animator.keyframes.to.tracks.x[0].curve must be a curve name, \(curveForms); got 5."),
        .init(
            "animator.keyframes.to.tracks.x[i].curve",
            tracks(#"{"x":[{"time":0,"value":0,"curve":{"spring":{"dampingRatio":1}}}]}"#), .invalidArgument,
            "animator.keyframes.to.tracks.x[0].curve cannot be a spring; put the spring on the animator's curve instead."
        ),
    ]

    static let keys65 = Array(repeating: #"{"time":1,"value":0}"#, count: 65).joined(separator: ",")
    static let rules257 = Array(repeating: #"{"animator":{}}"#, count: 257).joined(separator: ",")

    static let rules: [BadValueCase] = [
        .init(
            "animators", create(#""animators":"fast""#), .badRequest,
            #"animators must be an array of rules; got "fast"."#),
        .init(
            "animators", create(#""animators":["# + rules257 + "]"), .invalidArgument,
            "animators has 257 rules; at most 256 are allowed."),
        .init("animators[i]", create(#""animators":[5]"#), .badRequest, "animators[0] must be an object; got 5."),
        // Checked on requests only: stored events an earlier build accepted stay readable.
        .init(
            "animators[i].from", create(#""animators":[{"from":"Detail Screen","animator":{}}]"#), .invalidArgument,
            #"animators[0].from must be a route name matching [A-Za-z0-9._-]{1,64}; got "Detail Screen"."#),
        .init(
            "animators[i].to", create(#""animators":[{"operation":"push","animator":{}},{"to":"","animator":{}}]"#),
            .invalidArgument, #"animators[1].to must be a route name matching [A-Za-z0-9._-]{1,64}; got ""."#),
        .init(
            "animator.keyframes.from.anchor",
            animator(#"{"style":"keyframes","keyframes":{"from":{"anchor":[0.5,7]}}}"#),
            .invalidArgument, "animator.keyframes.from.anchor[1] must be in [0, 1]; got 7."),
        .init(
            "animator.keyframes.to.tracks.x[i].value",
            animator(#"{"style":"keyframes","keyframes":{"to":{"tracks":{"alpha":[{"time":0,"value":-5}]}}}}"#),
            .invalidArgument, "animator.keyframes.to.tracks.alpha[0].value must be in [0, 1]; got -5."),
        .init(
            "animator.keyframes.to.tracks.x[i].value",
            nav(
                "begin",
                #""operation":"pop","animator":{"style":"keyframes","keyframes":{"to":{"tracks":{"rotation":[{"time":1,"value":1e300}]}}}}"#
            ),
            .invalidArgument, "animator.keyframes.to.tracks.rotation[0].value must be in [-100000, 100000]; got 1e+300."
        ),
        .init(
            "unknown member", create(#""animators":[{"animator":{},"when":1}]"#), .badRequest,
            #"animators[0] has unknown key "when"; allowed keys are operation, from, to, animator."#),
        // The duration rule for settling springs holds in a rule as in a command's animator.
        .init(
            "animators[i].animator.duration", create(#""animators":[{"animator":{"duration":"1"}}]"#), .badRequest,
            #"animators[0].animator.duration must be a number; got "1"."#),
        .init(
            "animators[i].animator.duration",
            create(
                #""animators":[{"animator":{"duration":0.3,"curve":{"spring":{"response":0.5,"dampingFraction":1}}}}]"#),
            .invalidArgument,
            "animators[0].animator.duration cannot be given with a spring that settles in its own time"),
        .init(
            "animators[i].operation", create(#""animators":[{"operation":1,"animator":{}}]"#), .badRequest,
            "animators[0].operation must be a string; got 1."),
        .init(
            "animators[i].operation", create(#""animators":[{"operation":"shove","animator":{}}]"#), .invalidArgument,
            #"animators[0].operation must be one of push, pop, present, dismiss; got "shove"."#),
        .init(
            "animators[i].from", create(#""animators":[{"from":3,"animator":{}}]"#), .badRequest,
            "animators[0].from must be a string; got 3."),
        .init(
            "animators[i].to", create(#""animators":[{"to":["A"],"animator":{}}]"#), .badRequest,
            "animators[0].to must be a string; got an array of 1 value."),
        .init(
            "animators[i].animator", create(#""animators":[{"operation":"push"}]"#), .badRequest,
            "animators[0].animator is required: an animator object, {} for the standard one."),
        .init(
            "animators[i].animator", create(#""animators":[{"animator":"fade"}]"#), .badRequest,
            #"animators[0].animator must be an object; got "fade"."#),
        .init(
            "animators[i].animator.duration", create(#""animators":[{"animator":{"duration":"1"}}]"#), .badRequest,
            #"animators[0].animator.duration must be a number; got "1"."#),
        .init(
            "animators[i].animator.duration", create(#""animators":[{"animator":{"duration":-1}}]"#),
            .invalidArgument, "animators[0].animator.duration must be in (0, 60] seconds; got -1."),
    ]
}
