import Foundation

/// A boolean or number written by user code, told apart by its real type.
///
/// On Linux every `NSNumber` (what `JSONSerialization` returns, `1 as AnyObject`, `NSDictionary`
/// values) casts to `Bool` when it holds 0 or 1, and to `Int` when it holds a whole `Double`, so
/// `as? Bool` / `as? Int` cannot classify it. A boolean `NSNumber` is the `CFBoolean`-backed one
/// (`NSNumber(value: true)`'s class); any other `NSNumber` is a number whose kind its `objCType`
/// says. Native Swift values keep their static type.
enum UserScalar: Equatable {
    case bool(Bool)
    case int(Int64)
    case double(Double)
    /// An unsigned integer above `Int64.max`.
    case tooLarge(UInt64)

    /// The class of boolean `NSNumber`s (`__NSCFBoolean` in swift-corelibs-foundation and on Apple
    /// platforms), or nil where booleans share `NSNumber`'s own class.
    private static let booleanClass: AnyClass? = {
        let cls: AnyClass = type(of: NSNumber(value: true))
        return cls == NSNumber.self ? nil : cls
    }()

    /// The scalar `value` holds, or nil when it is not a boolean or a number.
    static func classify(_ value: Any) -> UserScalar? {
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber { return classify(number) }
        switch value {
        case let v as Bool: return .bool(v)
        case let v as Int: return .int(Int64(v))
        case let v as Int64: return .int(v)
        case let v as Int32: return .int(Int64(v))
        case let v as Int16: return .int(Int64(v))
        case let v as Int8: return .int(Int64(v))
        case let v as UInt: return unsigned(UInt64(v))
        case let v as UInt64: return unsigned(v)
        case let v as UInt32: return .int(Int64(v))
        case let v as UInt16: return .int(Int64(v))
        case let v as UInt8: return .int(Int64(v))
        case let v as Double: return .double(v)
        case let v as Float: return .double(Double(v))
        case let v as CGFloat: return .double(Double(v))
        default: return nil
        }
    }

    /// An `NSNumber` object: boolean by class, otherwise by its `objCType`.
    static func classify(_ number: NSNumber) -> UserScalar {
        let type = String(cString: number.objCType)
        if let booleanClass = booleanClass {
            if Swift.type(of: number) == booleanClass { return .bool(number.boolValue) }
        } else if type == "c" || type == "B" {
            return .bool(number.boolValue)
        }
        switch type {
        case "f", "d": return .double(number.doubleValue)
        case "Q", "L", "I", "S", "C": return unsigned(number.uint64Value)
        default: return .int(number.int64Value)
        }
    }

    private static func unsigned(_ v: UInt64) -> UserScalar {
        if let i = Int64(exactly: v) { return .int(i) }
        return .tooLarge(v)
    }
}
