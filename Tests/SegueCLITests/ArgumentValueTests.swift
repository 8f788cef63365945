import SegueCommandLine
import SegueCore
import Testing

@testable import segue

/// The value forms: curves, durations, parameters.
@Suite struct ArgumentValueTests {
    static let curveCases: [(String, JSON)] = [
        ("easeInOut", JSON.string("easeInOut")),
        ("bezier:0.25,0.1,0.25,1", ["bezier": [0.25, 0.1, 0.25, 1.0]]),
        ("spring:0.7,0.2", ["spring": ["dampingRatio": 0.7, "initialVelocity": 0.2]]),
        ("spring:1,100,10,0", ["spring": ["mass": 1.0, "stiffness": 100.0, "damping": 10.0, "initialVelocity": 0.0]]),
        ("spring-response:0.5,0.8", ["spring": ["response": 0.5, "dampingFraction": 0.8]]),
    ]

    @Test(arguments: curveCases)
    func curves(text: String, json: JSON) throws {
        #expect(try ArgumentValues.curve(text, for: "--curve") == json)
        // What the CLI builds, the core accepts.
        _ = try TimingCurve(json: json)
    }

    @Test(arguments: ["wobbly", "bezier:1,2,3", "spring:1", "spring-response:a,b", "bezier:"])
    func badCurves(text: String) {
        let expectation =
            "expected linear, easeIn, easeOut, easeInOut, default, bezier:x1,y1,x2,y2, spring:dampingRatio,velocity, "
            + "spring:mass,stiffness,damping,velocity or spring-response:response,dampingFraction"
        #expect(throws: UsageError.invalidValue(text, for: "--curve", expectation)) {
            try ArgumentValues.curve(text, for: "--curve")
        }
    }

    @Test(arguments: [("0.4", 0.4), ("0.4s", 0.4), ("400ms", 0.4), ("2", 2.0), ("2m", 120), ("1h", 3600)])
    func seconds(text: String, value: Double) throws {
        #expect(abs(try ArgumentValues.seconds(text, for: "--over") - value) < 1e-12)
    }

    @Test(arguments: ["0", "-1", "soon", "1y", ""])
    func badSeconds(text: String) {
        #expect(
            throws: UsageError(
                "The value '\(text)' is invalid for '--over': expected a positive duration like 0.4, 0.4s or 400ms.")
        ) {
            try ArgumentValues.seconds(text, for: "--over")
        }
    }

    @Test(arguments: [
        ("id=42", "id", JSON.int(42)), ("title=Hello", "title", .string("Hello")), ("flag=true", "flag", .bool(true)),
        ("tags=[\"a\"]", "tags", JSON.array(["a"])), ("quoted=\"7\"", "quoted", .string("7")),
        ("empty=", "empty", .string("")), ("eq=a=b", "eq", .string("a=b")),
    ])
    func parameters(text: String, key: String, value: JSON) throws {
        let (k, v) = try ArgumentValues.parameter(text, for: "--param")
        #expect(k == key)
        #expect(v == value)
    }

    @Test(arguments: ["novalue", "=x"])
    func badParameters(text: String) {
        #expect(throws: UsageError("The value '\(text)' is invalid for '--param': expected key=value.")) {
            try ArgumentValues.parameter(text, for: "--param")
        }
    }
}
