import EmulatorModel
import EmulatorSupport

/// Checks a write value before anything is committed: keys, depth, key and string sizes,
/// server values, `.value`/`.priority` shapes. Nothing is written when this throws.
enum DatabaseInputValidator {
    /// Validates `json` written at `path`; `body` is the raw request body (for error positions).
    static func validate(_ json: JSONValue, at path: DatabasePath, body: [UInt8]) throws(DatabaseFailure) {
        try validate(json, depth: path.count, body: body)
    }

    private static func validate(_ json: JSONValue, depth: Int, body: [UInt8]) throws(DatabaseFailure) {
        switch json {
        case .null, .bool, .int: return
        case .double(let d):
            if !d.isFinite { throw .invalid(DatabaseFailure.invalidJSON) }
        case .string(let s):
            if s.utf8.count > DatabaseNode.maxStringBytes {
                throw .invalid("Invalid data; string exceeds the maximum size of 10485760 bytes.")
            }
        case .array(let items):
            if items.isEmpty { return }
            try checkDepth(depth + 1)
            for item in items { try validate(item, depth: depth + 1, body: body) }
        case .object(let members):
            var hasValue = false
            var hasChildren = false
            for member in members {
                switch member.name {
                case ".sv":
                    try validateServerValue(member.value)
                case ".value":
                    hasValue = true
                    try validate(member.value, depth: depth, body: body)
                    if case .object(let inner) = member.value, inner.contains(where: { $0.name != ".sv" }) {
                        throw .invalid(DatabaseFailure.invalidJSON)
                    }
                case ".priority":
                    try validatePriority(member.value)
                default:
                    guard isValidKey(member.name) else {
                        throw .invalid(
                            "Invalid data; couldn't parse key beginning at \(position(ofKey: member.name, in: body)). "
                                + "Key value can't be empty or contain $ # [ ] / or .")
                    }
                    if member.name.utf8.count > DatabasePath.maxKeyBytes {
                        throw .invalid("Invalid data; key longer than \(DatabasePath.maxKeyBytes) bytes.")
                    }
                    if member.value != .null { hasChildren = true }
                    try checkDepth(depth + 1)
                    try validate(member.value, depth: depth + 1, body: body)
                }
            }
            if hasValue && hasChildren { throw .invalid(DatabaseFailure.invalidJSON) }
        }
    }

    /// Where the first problem `validate` reports for `json` (written at the root) lies: the keys
    /// leading to it and the message, for errors that name a key path rather than a position in
    /// a request body (`--import`). nil when `json` is valid. Meant for after `validate` failed:
    /// along the failing branch it validates subtrees again.
    static func locateProblem(in json: JSONValue) -> (path: [String], message: String)? {
        locate(json, depth: 0, path: [])
    }

    private static func locate(_ json: JSONValue, depth: Int, path: [String]) -> (path: [String], message: String)? {
        let message: String
        do throws(DatabaseFailure) {
            try validate(json, depth: depth, body: [])
            return nil
        } catch {
            message = error.message
        }
        // Members in the order `validate` checks them, so the first one failing here is the one
        // `message` is about.
        switch json {
        case .array(let items):
            for (index, item) in items.enumerated() {
                if let found = locate(item, depth: depth + 1, path: path + [String(index)]) { return found }
            }
        case .object(let members):
            for member in members {
                switch member.name {
                case ".sv", ".priority":
                    do throws(DatabaseFailure) {
                        if member.name == ".sv" { try validateServerValue(member.value) } else { try validatePriority(member.value) }
                    } catch {
                        return (path + [member.name], error.message)
                    }
                case ".value":
                    if let found = locate(member.value, depth: depth, path: path + [".value"]) { return found }
                default:
                    if !isValidKey(member.name) {
                        return (
                            path + [member.name],
                            "Invalid data; key \"\(member.name)\" can't be empty or contain $ # [ ] / or ."
                        )
                    }
                    if member.name.utf8.count > DatabasePath.maxKeyBytes || depth + 1 > DatabasePath.maxDepth {
                        return (path + [member.name], message)
                    }
                    if let found = locate(member.value, depth: depth + 1, path: path + [member.name]) { return found }
                }
            }
        default:
            break
        }
        return (path, message)
    }

    private static func checkDepth(_ depth: Int) throws(DatabaseFailure) {
        if depth > DatabasePath.maxDepth {
            throw .invalid(
                "Invalid data; path specified exceeds the maximum depth that can be written (\(DatabasePath.maxDepth)).")
        }
    }

    static func validatePriority(_ json: JSONValue) throws(DatabaseFailure) {
        switch json {
        case .null, .int, .double, .string: return
        case .object(let members) where members.count == 1 && members[0].name == ".sv":
            try validateServerValue(members[0].value)
        default:
            throw .invalid("Invalid data; priority must be a number or a string.")
        }
    }

    static func validateServerValue(_ json: JSONValue) throws(DatabaseFailure) {
        switch json {
        case .string(let s) where s == "timestamp": return
        case .object(let members) where members.count == 1 && members[0].name == "increment":
            switch members[0].value {
            case .int: return
            case .double(let d) where d.isFinite: return
            default: break
            }
        default: break
        }
        throw .invalid("Invalid data; unrecognized server value.")
    }

    /// A user key: non-empty, none of `. $ # [ ] /`, no ASCII control characters.
    static func isValidKey(_ key: String) -> Bool {
        if key.utf8.isEmpty { return false }
        for c in key.utf8 {
            switch c {
            case 0x2E, 0x24, 0x23, 0x5B, 0x5D, 0x2F, 0x00...0x1F, 0x7F: return false
            default: continue
            }
        }
        return true
    }

    /// `line:column` (1-based) of the quoted key in the body, as the production message reports it.
    static func position(ofKey key: String, in body: [UInt8]) -> String {
        let needle = [UInt8(ascii: "\"")] + Array(key.utf8) + [UInt8(ascii: "\"")]
        var line = 1
        var column = 1
        var i = 0
        while i + needle.count <= body.count {
            if body[i] == needle[0] && Array(body[i..<(i + needle.count)]) == needle {
                var j = i + needle.count
                while j < body.count, body[j] == 0x20 || body[j] == 0x09 || body[j] == 0x0A || body[j] == 0x0D { j += 1 }
                if j < body.count && body[j] == UInt8(ascii: ":") { return "\(line):\(column)" }
            }
            if body[i] == 0x0A {
                line += 1
                column = 1
            } else {
                column += 1
            }
            i += 1
        }
        return "1:1"
    }
}
