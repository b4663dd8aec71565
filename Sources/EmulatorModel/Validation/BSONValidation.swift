/// The checks a BSON map (``BSONType``) passes before it is written, and the one rewrite the
/// server makes: Decimal128 special values take their canonical spelling (`inf` → `Infinity`,
/// `-inf` → `-Infinity`, `nan` → `NaN`). Every failure is `INVALID_ARGUMENT`; a regex option
/// outside `imsux` fails with "Invalid regex option …", the text the official clients' system
/// tests look for.
package enum BSONValidation {
    /// Checks one BSON map at `path`. Returns true when its text must be rewritten
    /// (``canonicalized(_:)``).
    package static func check(_ type: BSONType, _ map: ValueMap, path: () -> [String]) throws(EmulatorError) -> Bool {
        let inner = BSONParts.inner(map)
        func fail(_ what: String) -> EmulatorError {
            .invalidArgument("Invalid \(what) in field \"\(FieldPath(path()).canonicalString)\".")
        }
        switch type {
        case .minKey, .maxKey:
            guard case .null = inner else { throw fail("\(type == .minKey ? "MinKey" : "MaxKey") value: \(type.key) must be null") }
        case .objectId:
            guard case .string(let s) = inner, s.utf8.count == 24, s.utf8.allSatisfy(isHexDigit) else {
                throw fail("ObjectId value: \(type.key) must be a string of 24 hexadecimal digits")
            }
        case .int32:
            guard case .integer(let i) = inner, i >= Int64(Int32.min), i <= Int64(Int32.max) else {
                throw fail("Int32 value: \(type.key) must be an integer between -2147483648 and 2147483647")
            }
        case .decimal128:
            guard case .string(let s) = inner, let d = Decimal128(s) else {
                throw fail("Decimal128 value: \(type.key) must be a decimal number of at most 34 digits within Decimal128's exponent range")
            }
            return !UTF8Order.equal(d.canonicalText, s)
        case .regex:
            guard case .map(let r) = inner, case .string? = r["pattern"], case .string(let options)? = r["options"],
                r.count == 2
            else {
                throw fail("regex value: \(type.key) must be a map of the strings 'pattern' and 'options'")
            }
            for c in options where !BSONType.regexOptions.contains(c) {
                throw .invalidArgument(
                    "Invalid regex option '\(c)' in field \"\(FieldPath(path()).canonicalString)\": supported options are 'i', 'm', 's', 'u' and 'x'."
                )
            }
        case .timestamp:
            guard case .map(let t) = inner, t.count == 2, case .integer(let s)? = t["seconds"],
                case .integer(let i)? = t["increment"], (0...Int64(UInt32.max)).contains(s), (0...Int64(UInt32.max)).contains(i)
            else {
                throw fail("BSON timestamp: \(type.key) must be a map of the integers 'seconds' and 'increment', each between 0 and 4294967295")
            }
        case .binary:
            guard case .bytes(let b) = inner, !b.isEmpty else {
                throw fail("BSON binary data: \(type.key) must be bytes starting with the subtype byte")
            }
        }
        return false
    }

    /// `fields` with every Decimal128 in its canonical spelling (call after a validation that
    /// returned true).
    package static func canonicalized(_ fields: ValueMap) -> ValueMap {
        ValueMap(uncheckedSortedFields: fields.map { ValueMap.Field($0.name, canonicalized($0.value)) })
    }

    private static func canonicalized(_ value: Value) -> Value {
        switch value {
        case .map(let m):
            if m.bsonType == .decimal128, case .string(let s) = BSONParts.inner(m), let d = Decimal128(s) {
                return .decimal128(d.canonicalText)
            }
            return .map(canonicalized(m))
        case .array(let elements):
            return .array(elements.map(canonicalized))
        default:
            return value
        }
    }

    private static func isHexDigit(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66)
    }
}
