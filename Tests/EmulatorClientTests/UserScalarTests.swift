@testable import EmulatorClient
import EmulatorModel
import EmulatorSupport
import Foundation
import Testing

/// One way user code can hold a boolean or a number, and what it must be stored as.
struct ScalarRepresentation: Sendable, CustomTestStringConvertible {
    enum Stored: Sendable, Equatable {
        case bool(Bool)
        case int(Int64)
        case double(Double)
    }

    let name: String
    let make: @Sendable () -> Any
    let stored: Stored
    var testDescription: String { name }

    init(_ name: String, _ stored: Stored, _ make: @escaping @Sendable () -> Any) {
        self.name = name
        self.make = make
        self.stored = stored
    }

    /// `JSONSerialization`'s value for `text` (a JSON number or boolean).
    static func fromJSON(_ text: String) -> Any {
        let object = try? JSONSerialization.jsonObject(with: Data("[\(text)]".utf8))
        return (object as? [Any])?.first ?? NSNull()
    }

    static let table: [ScalarRepresentation] = [
        .init("Swift Bool true", .bool(true)) { true },
        .init("Swift Bool false", .bool(false)) { false },
        .init("Swift Int 0", .int(0)) { 0 },
        .init("Swift Int 1", .int(1)) { 1 },
        .init("Swift Int -1", .int(-1)) { -1 },
        .init("Int8 1", .int(1)) { Int8(1) },
        .init("Int16 0", .int(0)) { Int16(0) },
        .init("Int32 1", .int(1)) { Int32(1) },
        .init("Int64 max", .int(.max)) { Int64.max },
        .init("UInt 1", .int(1)) { UInt(1) },
        .init("UInt8 0", .int(0)) { UInt8(0) },
        .init("UInt16 1", .int(1)) { UInt16(1) },
        .init("UInt32 1", .int(1)) { UInt32(1) },
        .init("UInt64 1", .int(1)) { UInt64(1) },
        .init("Double 1.0", .double(1)) { 1.0 },
        .init("Double 0.0", .double(0)) { 0.0 },
        .init("Double 2.5", .double(2.5)) { 2.5 },
        .init("Float 1", .double(1)) { Float(1) },
        .init("CGFloat 1", .double(1)) { CGFloat(1) },
        .init("NSNumber(value: true)", .bool(true)) { NSNumber(value: true) },
        .init("NSNumber(value: false)", .bool(false)) { NSNumber(value: false) },
        .init("NSNumber(value: 1)", .int(1)) { NSNumber(value: 1) },
        .init("NSNumber(value: 0)", .int(0)) { NSNumber(value: 0) },
        .init("NSNumber(value: Int8(1))", .int(1)) { NSNumber(value: Int8(1)) },
        .init("NSNumber(value: UInt8(1))", .int(1)) { NSNumber(value: UInt8(1)) },
        .init("NSNumber(value: UInt64(1))", .int(1)) { NSNumber(value: UInt64(1)) },
        .init("NSNumber(value: 1.0)", .double(1)) { NSNumber(value: 1.0) },
        .init("NSNumber(value: Float(0))", .double(0)) { NSNumber(value: Float(0)) },
        .init("1 as AnyObject", .int(1)) { 1 as AnyObject },
        .init("0 as AnyObject", .int(0)) { 0 as AnyObject },
        .init("true as AnyObject", .bool(true)) { true as AnyObject },
        .init("1.0 as AnyObject", .double(1)) { 1.0 as AnyObject },
        .init("JSONSerialization 1", .int(1)) { fromJSON("1") },
        .init("JSONSerialization 0", .int(0)) { fromJSON("0") },
        .init("JSONSerialization true", .bool(true)) { fromJSON("true") },
        .init("JSONSerialization false", .bool(false)) { fromJSON("false") },
        .init("JSONSerialization 1.5", .double(1.5)) { fromJSON("1.5") },
        .init("NSDictionary value 1", .int(1)) { NSDictionary(dictionary: ["n": 1])["n"] ?? NSNull() },
        .init("NSDictionary value true", .bool(true)) { NSDictionary(dictionary: ["n": true])["n"] ?? NSNull() },
        .init("NSArray element 0", .int(0)) { NSArray(array: [0])[0] },
    ]
}

@Suite struct UserScalarTests {
    @Test(arguments: ScalarRepresentation.table)
    func firestoreWritesKeepTheRealType(_ representation: ScalarRepresentation) throws {
        let value = try FieldData(any: representation.make()).plainValue()
        switch representation.stored {
        case .bool(let b): #expect(value == .boolean(b))
        case .int(let i): #expect(value == .integer(i))
        case .double(let d): #expect(value == .double(d))
        }
    }

    @Test(arguments: ScalarRepresentation.table)
    func databaseWritesKeepTheRealType(_ representation: ScalarRepresentation) throws {
        let json = try DatabaseValue.json(representation.make())
        switch representation.stored {
        case .bool(let b): #expect(json == .bool(b))
        case .int(let i): #expect(json == .int(i))
        case .double(let d): #expect(json == .double(d))
        }
    }

    @Test func numbersInsideMapsAndArraysKeepTheirTypeToo() throws {
        let post = ["starCount": 1 as AnyObject, "stars": ["ada": true] as AnyObject] as [String: AnyObject]
        let json = try DatabaseValue.json(post)
        #expect(JSONWriter.encodeToString(json) == #"{"starCount":1,"stars":{"ada":true}}"#)
        let fields = try FieldData(any: ["counts": [NSNumber(value: 0), NSNumber(value: true)]] as [String: Any]).plainValue()
        #expect(fields == .map(ValueMap([("counts", .array([.integer(0), .boolean(true)]))])))
    }

    @Test func unsignedValuesAboveInt64MaxAreRefused() {
        #expect(throws: FirestoreError.self) { try FieldData(any: UInt64.max) }
        #expect(throws: FirestoreError.self) { try FieldData(any: NSNumber(value: UInt64.max)) }
        #expect(throws: DatabaseError.self) { try DatabaseValue.json(UInt64.max) }
    }
}
