import EmulatorModel
import Testing
@testable import FirestoreEmulator
@Test func scratch() throws {
    let m: ValueMap = ["n": .integer(1)]
    let p = try FieldPath(parsing: "_none_")
    print("A", m.value(at: p) as Any, m["_none_"] as Any, p.segments)
    print("B", QueryEngine.project(m, [p]))
}
