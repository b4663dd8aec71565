import Glibc

/// libm entry points, wrapped so the evaluator does not depend on Glibc directly.
enum RulesMath {
    static func sin(_ x: Double) -> Double { Glibc.sin(x) }
    static func cos(_ x: Double) -> Double { Glibc.cos(x) }
    static func asin(_ x: Double) -> Double { Glibc.asin(x) }
    static func pow(_ x: Double, _ y: Double) -> Double { Glibc.pow(x, y) }
}
