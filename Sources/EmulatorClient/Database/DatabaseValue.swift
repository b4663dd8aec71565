import EmulatorModel
import EmulatorSupport
import Foundation

/// Conversions between user values (`Any?`) and JSON for the Realtime Database.
enum DatabaseValue {
    /// `String`, `Bool`, integers, `Double`/`Float`, `NSNull`/nil, `[String: Any]`, `[Any]`
    /// (arrays are sent as they are; the server stores them as objects keyed "0", "1", …).
    static func json(_ value: Any?) throws(DatabaseError) -> JSONValue {
        guard let value else { return .null }
        if let scalar = UserScalar.classify(value) {
            switch scalar {
            case .bool(let b): return .bool(b)
            case .int(let i): return .int(i)
            case .double(let d):
                guard d.isFinite else { throw DatabaseError("Cannot store \(d) in the Realtime Database") }
                return .double(d)
            case .tooLarge(let u): throw DatabaseError("Cannot store \(u) in the Realtime Database: too large")
            }
        }
        switch value {
        case is NSNull: return .null
        case let v as String: return .string(v)
        case let v as [String: Any]:
            var members: [JSONMember] = []
            for (k, e) in v.sorted(by: { $0.key < $1.key }) { members.append(JSONMember(k, try json(e))) }
            return .object(members)
        case let v as [AnyHashable: Any]:
            var members: [JSONMember] = []
            for (k, e) in v {
                guard let key = k.base as? String else { throw DatabaseError("Dictionary keys must be strings") }
                members.append(JSONMember(key, try json(e)))
            }
            return .object(members)
        case let v as [Any]:
            var items: [JSONValue] = []
            for e in v { items.append(try json(e)) }
            return .array(items)
        case let v as JSONValue: return v
        default:
            throw DatabaseError("Cannot store a value of type \(type(of: value)) in the Realtime Database")
        }
    }

    /// JSON as user values: `String`, `Bool`, `Int`, `Double`, `[String: Any]`, `[Any]`, `NSNull` inside arrays.
    static func any(_ json: JSONValue) -> Any {
        switch json {
        case .null: return NSNull()
        case .bool(let b): return b
        case .int(let i): return Int(i)
        case .double(let d): return d
        case .string(let s): return s
        case .array(let a): return a.map { any($0) }
        case .object(let members):
            var out: [String: Any] = [:]
            for m in members { out[m.name] = any(m.value) }
            return out
        }
    }
}

/// A failed Realtime Database call.
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// The HTTP status the emulator answered (0 when the request never got an answer).
    public var status: Int
    public var message: String
    /// The wire protocol's status (`permission_denied`, `datastale`, …) when the server refused a request.
    var wireStatus: String?

    init(_ message: String, status: Int = 0) {
        self.message = message
        self.status = status
    }

    public var description: String { status == 0 ? message : "HTTP \(status): \(message)" }
}

/// Placeholders the server replaces when it applies a write.
///
/// ```swift
/// try await ref.updateChildValues(["starCount": ServerValue.increment(1), "at": ServerValue.timestamp()])
/// ```
public enum ServerValue {
    /// The server's time in milliseconds since the epoch.
    public static func timestamp() -> [String: Any] { [".sv": "timestamp"] }
    /// The current number plus `delta` (or `delta` when absent or not a number).
    public static func increment(_ delta: Int) -> [String: Any] { [".sv": ["increment": delta]] }
    public static func increment(_ delta: Double) -> [String: Any] { [".sv": ["increment": delta]] }
}
