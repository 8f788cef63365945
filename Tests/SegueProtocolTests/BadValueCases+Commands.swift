import SegueCore
import SegueProtocol

/// The arguments of `create` and of the navigation and gesture commands, screens included.
extension BadValueCase {
    static let screenForms = #"a route name or {"name": ..., "params": {...}}"#
    static let routeRule = "a route name matching [A-Za-z0-9._-]{1,64}"
    static let curveForms = #"{"bezier": [x1, y1, x2, y2]} or {"spring": {...}}"#

    static let create: [BadValueCase] = [
        .init(
            "root", nav("create", ""), .badRequest, "root is required: create needs \(screenForms)."),
        .init("root", nav("create", #""root":5"#), .badRequest, "root must be \(screenForms); got 5."),
        .init("root", nav("create", #""root":"""#), .invalidArgument, #"root must be \#(routeRule); got ""."#),
        .init("root.name", nav("create", #""root":{"name":5}"#), .badRequest, "root.name must be a string; got 5."),
        .init(
            "root.name", nav("create", #""root":{"name":"a/b"}"#), .invalidArgument,
            #"root.name must be \#(routeRule); got "a/b"."#),
        .init("root.name", nav("create", #""root":{}"#), .badRequest, "root.name is required: a route name."),
        .init(
            "root.params", nav("create", #""root":{"name":"A","params":[1]}"#), .badRequest,
            "root.params must be an object; got an array of 1 value."),
        .init(
            "unknown member", nav("create", #""root":{"name":"A","colour":1}"#), .badRequest,
            #"root has unknown member "colour"; a screen has "name" and "params"."#),
        .init("busy", create(#""busy":1"#), .badRequest, "busy must be a string; got 1."),
        .init("retarget", create(#""retarget":"yes""#), .badRequest, #"retarget must be true or false; got "yes"."#),
        .init(
            "busy", create(#""busy":"maybe""#), .invalidArgument, #"busy must be "reject" or "queue"; got "maybe"."#),
        .init("queueLimit", create(#""queueLimit":"16""#), .badRequest, #"queueLimit must be an integer; got "16"."#),
        .init("queueLimit", create(#""queueLimit":2.5"#), .badRequest, "queueLimit must be an integer; got 2.5."),
        .init("queueLimit", create(#""queueLimit":0"#), .invalidArgument, "queueLimit must be in [1, 1024]; got 0."),
        .init("endRule", create(#""endRule":[]"#), .badRequest, "endRule must be an object; got an empty array."),
        .init(
            "unknown member", create(#""endRule":{"speed":2}"#), .badRequest, #"Unknown field "speed" in endRule."#),
        .init(
            "endRule.threshold", create(#""endRule":{"threshold":"x"}"#), .badRequest,
            #"endRule.threshold must be a number; got "x"."#),
        .init(
            "endRule.threshold", create(#""endRule":{"threshold":2}"#), .invalidArgument,
            "endRule.threshold must be in [0, 1]; got 2."),
        .init(
            "endRule.velocityImpact", create(#""endRule":{"velocityImpact":[0.3]}"#), .badRequest,
            "endRule.velocityImpact must be a number; got an array of 1 value."),
        .init(
            "endRule.velocityImpact", create(#""endRule":{"velocityImpact":11}"#), .invalidArgument,
            "endRule.velocityImpact must be in [0, 10]; got 11."),
        .init(
            "endRule.flingVelocity", create(#""endRule":{"flingVelocity":false}"#), .badRequest,
            "endRule.flingVelocity must be a number; got false."),
        .init(
            "endRule.flingVelocity", create(#""endRule":{"flingVelocity":-1}"#), .invalidArgument,
            "endRule.flingVelocity must be in [0, 1000]; got -1."),
        .init("container", create(#""container":"big""#), .badRequest, #"container must be an object; got "big"."#),
        .init(
            "container.width", create(#""container":{"width":"10","height":10}"#), .badRequest,
            #"container.width must be a number; got "10"."#),
        .init(
            "container.width", create(#""container":{"width":0,"height":10}"#), .invalidArgument,
            "container.width must be in [1, 100000]; got 0."),
        .init(
            "container.height", create(#""container":{"width":10}"#), .badRequest,
            "container.height is required: a number of points in [1, 100000]."),
        .init(
            "container.height", create(#""container":{"width":10,"height":1e6}"#), .invalidArgument,
            "container.height must be in [1, 100000]; got 1000000."),
        .init(
            "interactionTimeout", create(#""interactionTimeout":true"#), .badRequest,
            "interactionTimeout must be a number; got true."),
        .init(
            "interactionTimeout", create(#""interactionTimeout":0"#), .invalidArgument,
            "interactionTimeout must be in [0.1, 86400]; got 0."),
        .init("maxDepth", create(#""maxDepth":"5""#), .badRequest, #"maxDepth must be an integer; got "5"."#),
        .init("maxDepth", create(#""maxDepth":0"#), .invalidArgument, "maxDepth must be in [1, 10000]; got 0."),
    ]

    static let navigation: [BadValueCase] = [
        .init("screen", nav("push", ""), .badRequest, "screen is required: push needs \(screenForms)."),
        .init("screen", nav("push", #""screen":5"#), .badRequest, "screen must be \(screenForms); got 5."),
        .init(
            "screen", nav("present", #""screen":[]"#), .badRequest,
            "screen must be \(screenForms); got an empty array."),
        .init(
            "screen", nav("push", #""screen":"A B""#), .invalidArgument, #"screen must be \#(routeRule); got "A B"."#),
        .init(
            "screen", nav("present", #""screen":{"name":"A","params":5}"#), .badRequest,
            "screen.params must be an object; got 5."),
        .init(
            "animated", nav("pop", #""animated":"yes""#), .badRequest, #"animated must be true or false; got "yes"."#),
        .init("popTo screen", nav("popTo", #""screen":3"#), .badRequest, "screen must be a string; got 3."),
        .init(
            "popTo screen", nav("popTo", ""), .badRequest,
            #"screen is required: popTo needs a screen id ("s3") or a route name."#),
        .init(
            "screens", nav("setStack", ""), .badRequest,
            "screens is required: setStack needs an array of screens, root first."),
        .init("screens", nav("setStack", #""screens":"A""#), .badRequest, #"screens must be an array; got "A"."#),
        .init(
            "screens", nav("setStack", #""screens":[]"#), .invalidArgument,
            "screens must be a non-empty array, root first; got an empty array."),
        .init(
            "screens[i]", nav("setStack", #""screens":["s1",5]"#), .badRequest,
            "screens[1] must be \(screenForms); got 5."),
        .init(
            "screens[i]", nav("setStack", #""screens":["a b"]"#), .invalidArgument,
            #"screens[0] must be a screen id or \#(routeRule); got "a b"."#),
        .init(
            "screens[i].id", nav("setStack", #""screens":[{"id":5}]"#), .badRequest,
            "screens[0].id must be a string; got 5."),
        .init(
            "unknown member", nav("setStack", #""screens":[{"id":"s1","name":"A"}]"#), .badRequest,
            #"screens[0] has "id" and other members; {"id": "s3"} keeps an existing screen"#),
        .init(
            "screens[i].name", nav("setStack", #""screens":[{"name":true}]"#), .badRequest,
            "screens[0].name must be a string; got true."),
        .init(
            "screens[i].name", nav("setStack", #""screens":[{"name":"a b"}]"#), .invalidArgument,
            #"screens[0].name must be \#(routeRule); got "a b"."#),
    ]

    static let gestures: [BadValueCase] = [
        .init("operation", nav("begin", #""operation":1"#), .badRequest, "operation must be a string; got 1."),
        .init(
            "operation", nav("begin", #""operation":"fly""#), .invalidArgument,
            #"operation must be one of pop, push, dismiss, present; got "fly"."#),
        .init(
            "screen", nav("begin", #""operation":"push""#), .badRequest,
            "screen is required: begin needs \(screenForms)."),
        .init(
            "animator", nav("begin", #""animator":{"curve":"linear"}"#), .badRequest,
            "animator goes with operation: an interrupting begin (no operation) keeps the transition's animator; "
                + "give the release's with finish, cancel or end (animator, or completionSpeed and completionCurve)."),
        .init("percent", nav("update", #""percent":"0.5""#), .badRequest, #"percent must be a number; got "0.5"."#),
        .init(
            "percent", nav("update", #""percent":null"#), .badRequest,
            "percent is required: update needs a number, clamped to [0, 1]."),
        .init("percent", nav("end", #""percent":"half""#), .badRequest, #"percent must be a number; got "half"."#),
        .init(
            "time", nav("end", #""edge":"left""#), .badRequest,
            "touch, edge and time go with percent on end: they describe the point it records"),
        .init("time", nav("end", #""percent":0.5,"time":"x""#), .badRequest, #"time must be an integer; got "x"."#),
        .init("time", nav("end", #""percent":0.5,"time":-1"#), .invalidArgument, "time must be 0 or more; got -1."),
        .init(
            "velocity", nav("update", #""percent":0.5,"velocity":"fast""#), .badRequest,
            #"velocity must be a number; got "fast"."#),
        .init(
            "velocity", nav("update", #""percent":0.5,"velocity":1e6"#), .invalidArgument,
            "velocity must be in [-1000, 1000]; got 1000000."),
        .init("velocity", nav("finish", #""velocity":true"#), .badRequest, "velocity must be a number; got true."),
        .init(
            "velocity", nav("end", #""velocity":-2000"#), .invalidArgument,
            "velocity must be in [-1000, 1000]; got -2000."),
        .init(
            "completionSpeed", nav("finish", #""completionSpeed":"2""#), .badRequest,
            #"completionSpeed must be a number; got "2"."#),
        .init(
            "completionSpeed", nav("finish", #""completionSpeed":0"#), .invalidArgument,
            "completionSpeed must be in [0.001, 1000]; got 0."),
        .init(
            "completionSpeed", nav("cancel", #""completionSpeed":-1"#), .invalidArgument,
            "completionSpeed must be in [0.001, 1000]; got -1."),
        .init(
            "completionCurve", nav("finish", #""completionCurve":5"#), .badRequest,
            #"completionCurve must be a curve name, or {"bezier": [x1, y1, x2, y2]}; got 5."#),
        .init(
            "completionCurve", nav("cancel", #""completionCurve":"wobbly""#), .invalidArgument,
            #"completionCurve must be one of linear, easeIn, easeOut, easeInOut, default, or {"bezier": [x1, y1, x2, y2]}; got "wobbly"."#
        ),
        .init(
            "completionCurve", nav("finish", #""completionCurve":{"spring":{"dampingRatio":0.5}}"#), .invalidArgument,
            #"completionCurve must be a curve name or a bezier, not a spring; got an object with "spring"."#),
        .init(
            "completionCurve.bezier[i]", nav("finish", #""completionCurve":{"bezier":["a",0,1,1]}"#), .badRequest,
            #"completionCurve.bezier[0] must be a number; got "a"."#),
        .init(
            "completionCurve.bezier[i]", nav("cancel", #""completionCurve":{"bezier":[2,0,1,1]}"#), .invalidArgument,
            "completionCurve.bezier[0] must be in [0, 1]; got 2."),
        // A release's animator is read as every animator: null inside it is a wrong type.
        .init(
            "animator.curve", nav("finish", #""animator":{"curve":null}"#), .badRequest,
            "animator.curve must be"),
        .init(
            "animator.durationFactor", nav("end", #""animator":{"durationFactor":null}"#), .badRequest,
            "animator.durationFactor must be a number; got null."),
        .init(
            "animator.durationFactor", nav("finish", #""animator":{"durationFactor":0}"#), .invalidArgument,
            "animator.durationFactor must be in"),
        .init(
            "unknown member", nav("cancel", #""animator":{"speed":2}"#), .badRequest,
            #"animator has unknown key "speed"; allowed keys are curve, durationFactor."#),
    ]
}
