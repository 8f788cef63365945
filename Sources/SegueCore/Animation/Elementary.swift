/// `exp`, `log`, `sin` and `cos` in plain Swift, for the springs.
///
/// Why not libm (through `@_silgen_name` or Glibc): ticks must be a pure function of the log, bit for bit,
/// on every host that replays it (docs/design.md, "What Segue is"). glibc picks its `exp`/`sin`/`cos` at load time by
/// CPU (FMA and non-FMA variants via ifunc), and other libms round differently in the last place, so the same log could
/// give different ticks on two machines. These functions use only IEEE-754 `+ - * /` (which Swift never fuses), so they
/// return the same bits everywhere.
///
/// Accuracy: a few ulp (about 1e-15 relative) over the ranges the springs use; `sin`/`cos` reduce the
/// argument with a three-part π/2 (fdlibm's constants), exact for |x| < 2^20·π/2 ≈ 1.6e6, which the
/// springs never exceed (their phase is at most about 1,000 radians; see `SpringMotion`).
enum Elementary {
    // fdlibm: ln2Hi has its low 32 bits zero, so k * ln2Hi is exact for |k| < 2^20.
    static let ln2Hi = 6.93147180369123816490e-01
    static let ln2Lo = 1.90821492927058770002e-10
    static let invLn2 = 1.44269504088896338700e+00

    // fdlibm's π/2 in three 33-bit parts, so n * part is exact for |n| < 2^20.
    static let pio2Part1 = 1.57079632673412561417e+00
    static let pio2Part2 = 6.07710050630396597660e-11
    static let pio2Part3 = 2.02226624871116645580e-21
    static let twoOverPi = 6.36619772367581382433e-01

    /// 1/n! for n = 0...22, each a correctly rounded quotient.
    static let inverseFactorials: [Double] = {
        var result: [Double] = [1]
        var factorial = 1.0
        for n in 1...22 {
            factorial *= Double(n)  // exact up to 22!
            result.append(1 / factorial)
        }
        return result
    }()

    /// e^x. Range reduction x = k·ln2 + r with |r| ≤ ln2/2, then a degree-13 Taylor polynomial
    /// (truncation error below 4e-18) and an exact scaling by 2^k.
    static func exp(_ x: Double) -> Double {
        if x.isNaN { return x }
        if x > 709.782712893384 { return .infinity }
        if x < -745.1332191019412 { return 0 }
        let k = (x * invLn2).rounded()
        let r = (x - k * ln2Hi) - k * ln2Lo
        var p = inverseFactorials[13]
        for n in stride(from: 12, through: 0, by: -1) {
            p = p * r + inverseFactorials[n]
        }
        return Double(sign: .plus, exponent: Int(k), significand: p)
    }

    /// Natural logarithm; NaN for x < 0, -∞ at 0. x = m·2^e with m in [√½, √2), then the atanh series
    /// log m = 2(s + s³/3 + s⁵/5 + …), s = (m − 1)/(m + 1), |s| ≤ 0.1716, to s²³ (error below 1e-18).
    static func log(_ x: Double) -> Double {
        if x.isNaN || x < 0 { return .nan }
        if x == 0 { return -.infinity }
        if x == .infinity { return x }
        var e = Double(Int(x.exponent))
        var m = x.significand  // [1, 2), exact; subnormals are normalised by `significand`/`exponent`
        if m > 1.4142135623730951 {
            m /= 2
            e += 1
        }
        let s = (m - 1) / (m + 1)
        let s2 = s * s
        var series = 1.0 / 23
        for n in stride(from: 21, through: 1, by: -2) {
            series = series * s2 + 1 / Double(n)
        }
        return e * ln2Hi + (2 * s * series + e * ln2Lo)
    }

    static func sin(_ x: Double) -> Double {
        let (r, quadrant) = reduce(x)
        switch quadrant {
        case 0: return sinKernel(r)
        case 1: return cosKernel(r)
        case 2: return -sinKernel(r)
        default: return -cosKernel(r)
        }
    }

    static func cos(_ x: Double) -> Double {
        let (r, quadrant) = reduce(x)
        switch quadrant {
        case 0: return cosKernel(r)
        case 1: return -sinKernel(r)
        case 2: return -cosKernel(r)
        default: return sinKernel(r)
        }
    }

    /// x = n·π/2 + r with |r| ≤ π/4 (plus rounding); returns r and n mod 4.
    private static func reduce(_ x: Double) -> (Double, Int) {
        if !x.isFinite { return (.nan, 0) }
        if abs(x) <= 0.7853981633974483 { return (x, 0) }
        let n = (x * twoOverPi).rounded()
        let r = ((x - n * pio2Part1) - n * pio2Part2) - n * pio2Part3
        let quadrant = Int(n.truncatingRemainder(dividingBy: 4))
        return (r, (quadrant + 4) % 4)
    }

    /// Taylor series of sin to r²¹ on |r| ≤ π/4 (truncation below 1e-22): sin r = r + r·r²·P(r²).
    private static func sinKernel(_ r: Double) -> Double {
        let r2 = r * r
        var p = inverseFactorials[21]
        for n in stride(from: 19, through: 3, by: -2) {
            let term = inverseFactorials[n]
            p = p * r2 + ((n - 1) / 2 % 2 == 0 ? term : -term)
        }
        return r + r * r2 * p
    }

    /// Taylor series of cos to r²² on |r| ≤ π/4: cos r = 1 + r²·Q(r²).
    private static func cosKernel(_ r: Double) -> Double {
        let r2 = r * r
        var p = -inverseFactorials[22]
        for n in stride(from: 20, through: 2, by: -2) {
            let term = inverseFactorials[n]
            p = p * r2 + (n / 2 % 2 == 0 ? term : -term)
        }
        return 1 + r2 * p
    }
}
